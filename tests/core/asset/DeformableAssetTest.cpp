#include "support/TestModels.h"

#include <bdt/core/asset/DeformableAsset.h>
#include <bdt/core/base/Error.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace bdt
{
namespace
{

TEST(DeformableAsset, HoldsTheModelsMassAndModalProperties)
{
    const auto tree = test::ShapeTree("chair", 1200, 6);
    const auto asset = DeformableAsset::Create(tree);
    EXPECT_EQ(&asset->Tree(), tree.get());
    EXPECT_EQ(asset->TreePtr(), tree);
    EXPECT_EQ(&asset->GetModel(), &tree->GetModel());

    const MassProperties mass = ComputeMassProperties(tree->GetModel());
    EXPECT_EQ(asset->Mass().solid, mass.solid);
    EXPECT_EQ(asset->Mass().volume, mass.volume);
    EXPECT_EQ(asset->Mass().centerOfMass, mass.centerOfMass);
    EXPECT_EQ(asset->Mass().inertia, mass.inertia);
    EXPECT_EQ(asset->Mass().principalInertia, mass.principalInertia);
    EXPECT_TRUE(asset->Mass().solid) << "the chair is six closed boxes";

    // The modal integrals with the rigid part of each mode's coupling to the frame taken out.
    ModalProperties modal = ComputeModalProperties(tree->GetModel(), mass.centerOfMass);
    const ModalProperties raw = modal;
    RemoveRigidCoupling(modal, tree->GetModel(), mass.centerOfMass);
    ASSERT_EQ(asset->Modal().modalMass.size(), 6u);
    for (std::uint32_t j = 0; j < 6; ++j)
    {
        EXPECT_EQ(asset->Modal().modalMass[j], modal.modalMass[j]);
        EXPECT_EQ(asset->Modal().meanDisplacement[j], modal.meanDisplacement[j]);
        EXPECT_EQ(asset->Modal().firstMoment[j], modal.firstMoment[j]);
        EXPECT_EQ(asset->Modal().maxDisplacement[j], modal.maxDisplacement[j]);
    }

    // The axial vectors: v · axial_j = ⟨[v]×, A_j⟩_F for any v, here the three axes and a mixed vector, with
    // the cross-product matrix spelled out.
    ASSERT_EQ(asset->FirstMomentAxial().size(), 6u);
    double largest = 0.0, rawLargest = 0.0;
    for (const Vec3d& axial : asset->FirstMomentAxial())
        largest = std::max(largest, axial.norm());
    for (const Mat3d& moment : raw.firstMoment)
        rawLargest = std::max(rawLargest, (moment - moment.transpose()).norm());
    EXPECT_GT(rawLargest, 1e-6) << "the chair's modes turn it about its centre: some raw A_j are not symmetric";
    EXPECT_LT(largest, 1e-9 * rawLargest) << "what is left of them is";
    for (std::uint32_t j = 0; j < 6; ++j)
        for (const Vec3d& v : {Vec3d(1, 0, 0), Vec3d(0, 1, 0), Vec3d(0, 0, 1), Vec3d(0.3, -1.2, 2.5)})
        {
            Mat3d cross;
            cross << 0.0, -v.z(), v.y(), v.z(), 0.0, -v.x(), -v.y(), v.x(), 0.0;
            const double frobenius = (cross.array() * modal.firstMoment[j].array()).sum();
            EXPECT_NEAR(v.dot(asset->FirstMomentAxial()[j]), frobenius,
                        1e-12 * (1.0 + modal.firstMoment[j].norm()))
                << "mode " << j;
        }

    // The root's rest radius: every rest vertex within it of the root centre, and at least one near it.
    EXPECT_EQ(asset->BoundingRadius(), double(tree->Row(0)[3]));
    const Vec3d center(tree->Row(0)[0], tree->Row(0)[1], tree->Row(0)[2]);
    double farthest = 0.0;
    for (const Vec3f& p : tree->GetModel().Positions())
        farthest = std::max(farthest, (p.cast<double>() - center).norm());
    EXPECT_LE(farthest, asset->BoundingRadius());
    EXPECT_GT(farthest, 0.999 * asset->BoundingRadius());
}

TEST(DeformableAsset, RejectsNullTreeAndZeroArea)
{
    EXPECT_THROW(DeformableAsset::Create(nullptr), Error);
    ModelData data;
    data.positions = {Vec3f(0, 0, 0), Vec3f(1, 0, 0), Vec3f(2, 0, 0)};
    data.triangles = {Triangle{0, 1, 2}};
    const auto flat = std::make_shared<const BDTree>(BDTree::Build(Model::Create(std::move(data))));
    EXPECT_THROW(DeformableAsset::Create(flat), Error);
}

TEST(DeformableAsset, CachesOneProxyLevelPerClampedLevel)
{
    const auto tree = test::ShapeTree("torus", 800, 4);
    const auto asset = DeformableAsset::Create(tree);
    const std::size_t before = asset->MemoryBytes();
    EXPECT_EQ(before, tree->MemoryBytes());

    const auto level3 = asset->Proxies(3);
    ASSERT_NE(level3, nullptr);
    EXPECT_EQ(level3->Level(), 3u);
    EXPECT_EQ(level3->TreePtr(), tree);
    EXPECT_EQ(asset->Proxies(3), level3) << "the same object for the same level";
    EXPECT_EQ(asset->MemoryBytes(), before + level3->MemoryBytes());
    EXPECT_GT(level3->MemoryBytes(), 0u);

    const std::uint32_t deepest = tree->LevelCount() - 1;
    const auto clamped = asset->Proxies(1000);
    EXPECT_EQ(clamped->Level(), deepest);
    EXPECT_EQ(asset->Proxies(deepest), clamped);
    EXPECT_EQ(asset->Proxies(deepest + 1), clamped);
    EXPECT_NE(asset->Proxies(2), level3);

    // The cached level holds the same rows as a freshly built one.
    const ContactProxies fresh(tree, 3);
    for (std::uint32_t n = 0; n < fresh.VisitCount(); ++n)
        for (std::uint32_t k = 0; k < tree->RowStride(); ++k)
            ASSERT_EQ(level3->Row(n)[k], fresh.Row(n)[k]);
}

TEST(DeformableAsset, ProxiesAreThreadSafe)
{
    const auto tree = test::ShapeTree("pawn", 1500, 4);
    const auto asset = DeformableAsset::Create(tree);
    const std::uint32_t levels = tree->LevelCount();
    constexpr int cThreads = 8;
    std::vector<std::vector<std::shared_ptr<const ContactProxies>>> seen(cThreads);
    std::atomic<int> ready = 0;
    std::vector<std::thread> threads;
    for (int t = 0; t < cThreads; ++t)
        threads.emplace_back(
            [&, t]
            {
                ++ready;
                while (ready.load() < cThreads)
                    std::this_thread::yield(); // start together to make races likely
                for (std::uint32_t k = 0; k < 3 * levels; ++k)
                    seen[t].push_back(asset->Proxies((k * (t + 1) + t) % (levels + 2)));
            });
    for (std::thread& thread : threads)
        thread.join();
    // Every thread got the one cached object of each (clamped) level.
    for (int t = 0; t < cThreads; ++t)
    {
        ASSERT_EQ(seen[t].size(), 3 * levels);
        for (std::uint32_t k = 0; k < seen[t].size(); ++k)
        {
            const std::uint32_t level = std::min((k * (t + 1) + t) % (levels + 2), levels - 1);
            ASSERT_EQ(seen[t][k]->Level(), level);
            ASSERT_EQ(seen[t][k], asset->Proxies(level));
        }
    }
}

} // namespace
} // namespace bdt
