// bdt::World::SaveState and LoadState: a snapshot restores every body bit for bit, two worlds loaded from one
// snapshot step alike bit for bit, and a bad snapshot (truncated, corrupt, another world's) is refused without
// changing anything.
#include "support/BulletScenes.h"

#include "core/base/Fnv1a.h"

#include <bdt/samples/SampleWorld.h>
#include <bdt/adapter/World.h>
#include <bdt/core/base/Error.h>
#include <btBulletDynamicsCommon.h>
#include <algorithm>
#include <cstring>
#include <gtest/gtest.h>
#include <memory>
#include <vector>

namespace bdt
{
namespace
{

constexpr double cStep = 1.0 / 60.0;
constexpr std::uint32_t cChairs = 16;

/// The same scene every time: a pile of chairs above the ground, one of them also pushed by a force held at a
/// point (so a held force and a pending impulse are in the state).
std::unique_ptr<SampleWorld> MakePile()
{
    auto world = std::make_unique<SampleWorld>();
    world->AddGroundPlane();
    test::AddChairPile(*world, cChairs, 2);
    return world;
}

std::string LoadError(World& ioWorld, std::span<const std::uint8_t> inSnapshot)
{
    try
    {
        ioWorld.LoadState(inSnapshot);
    }
    catch (const Error& error)
    {
        return error.what();
    }
    return "";
}

TEST(WorldState, ASnapshotRestoresEveryBodyAndTwoLoadedWorldsStepAlike)
{
    std::unique_ptr<SampleWorld> original = MakePile();
    original->Step(100, cStep);
    btRigidBody* pushed = original->Deformables().Bodies()[3];
    ASSERT_TRUE(original->Deformables().ApplyForce(pushed, pushed->getCenterOfMassPosition() + btVector3(0.1f, 0.2f, 0),
                                                   btVector3(20, 5, 0)));
    const std::vector<std::uint8_t> snapshot = original->Deformables().SaveState();
    const std::uint64_t saved = original->Deformables().StateHash();

    std::unique_ptr<SampleWorld> first = MakePile(), second = MakePile();
    second->Step(1, cStep); // a world that has stepped loads to the same state as a fresh one
    first->Deformables().LoadState(snapshot);
    second->Deformables().LoadState(snapshot);
    EXPECT_EQ(first->Deformables().StateHash(), saved);
    EXPECT_EQ(second->Deformables().StateHash(), saved);
    EXPECT_EQ(test::RawBodyState(first->Deformables().Bodies()), test::RawBodyState(original->Deformables().Bodies()));
    // Saved again, the loaded state is the same snapshot, byte for byte.
    EXPECT_EQ(first->Deformables().SaveState(), snapshot);
    // The last step's start comes along: a loaded world's motion vectors are the saved world's.
    for (std::uint32_t b = 0; b < cChairs; ++b)
    {
        const btRigidBody* from = original->Deformables().Bodies()[b];
        const btRigidBody* to = second->Deformables().Bodies()[b];
        const std::span<const float> savedQ = original->Deformables().PreviousQ(from);
        const std::span<const float> loadedQ = second->Deformables().PreviousQ(to);
        EXPECT_TRUE(std::equal(savedQ.begin(), savedQ.end(), loadedQ.begin(), loadedQ.end())) << b;
        EXPECT_EQ(original->Deformables().PreviousMeshTransform(from).getOrigin(),
                  second->Deformables().PreviousMeshTransform(to).getOrigin())
            << b;
    }

    first->Step(100, cStep);
    second->Step(100, cStep);
    EXPECT_EQ(first->Deformables().StateHash(), second->Deformables().StateHash());
    EXPECT_EQ(test::RawBodyState(first->Deformables().Bodies()), test::RawBodyState(second->Deformables().Bodies()));
    EXPECT_NE(first->Deformables().StateHash(), saved); // they did move on
}

// The figure: the 100-chair pile saved at step 300 (chairs still falling, landing and piling up), loaded
// into two freshly built worlds that then step 300 more: both end on the same state, bit for bit.
TEST(WorldState, TheHundredChairPileSavedAtStep300ReplaysAlike)
{
    const auto makePile = []
    {
        auto world = std::make_unique<SampleWorld>();
        world->AddGroundPlane();
        test::AddChairPile(*world, 100, 4);
        return world;
    };
    std::unique_ptr<SampleWorld> original = makePile();
    original->Step(300, cStep);
    const std::vector<std::uint8_t> snapshot = original->Deformables().SaveState();
    std::vector<std::uint64_t> ends;
    for (int run = 0; run < 2; ++run)
    {
        std::unique_ptr<SampleWorld> loaded = makePile();
        loaded->Deformables().LoadState(snapshot);
        EXPECT_EQ(loaded->Deformables().StateHash(), original->Deformables().StateHash());
        EXPECT_EQ(test::RawBodyState(loaded->Deformables().Bodies()),
                  test::RawBodyState(original->Deformables().Bodies()));
        loaded->Step(300, cStep);
        ends.push_back(loaded->Deformables().StateHash());
    }
    EXPECT_EQ(ends[0], ends[1]);
    EXPECT_NE(ends[0], original->Deformables().StateHash());
}

/// Two modal chairs swinging in the air: the first held by a corner to a point of the world, the second by a
/// corner to a point of the first's surface; nothing touches (no manifold), so a replay can match bit for bit.
std::unique_ptr<SampleWorld> MakeHangingChairs(std::vector<AttachmentId>& outAttachments)
{
    auto world = std::make_unique<SampleWorld>();
    World& deformables = world->Deformables();
    const std::shared_ptr<const DeformableAsset> asset = test::ModalShapeAsset("chair", 1500, 8, 2e6);
    btRigidBody* chairs[2];
    for (int i = 0; i < 2; ++i)
    {
        BodySettings desc;
        desc.mass = 4.0;
        desc.proxyLevel = 8;
        desc.transform.setOrigin(btVector3(0.3f * float(i), 3.0f - 1.2f * float(i), 0.0f));
        chairs[i] = deformables.CreateBody(asset, desc);
    }
    const btVector3 top(0.3f, 3.5f, -0.3f); // beyond the first chair's top back corner
    const SurfacePoint corner = deformables.ClosestSurfacePoint(chairs[0], top);
    outAttachments = {deformables.Attach(chairs[0], corner, nullptr, deformables.SurfacePosition(chairs[0], corner))};
    const SurfacePoint lower = deformables.ClosestSurfacePoint(chairs[1], top - btVector3(0, 1.2f, 0));
    const SurfacePoint upper = deformables.ClosestSurfacePoint(chairs[0], deformables.SurfacePosition(chairs[1], lower));
    outAttachments.push_back(deformables.Attach(chairs[1], lower, chairs[0], upper));
    return world;
}

TEST(WorldState, AttachmentsReplayBitForBit)
{
    // The attachments' impulses, which each solve starts from, are in the snapshot: a world loaded from it steps
    // as the world it was saved from, bit for bit (nothing touches, so no manifold's warm start differs).
    std::vector<AttachmentId> ids, loadedIds;
    std::unique_ptr<SampleWorld> original = MakeHangingChairs(ids);
    original->Step(100, cStep);
    const std::vector<std::uint8_t> snapshot = original->Deformables().SaveState();
    std::unique_ptr<SampleWorld> loaded = MakeHangingChairs(loadedIds);
    loaded->Deformables().LoadState(snapshot);
    EXPECT_EQ(loaded->Deformables().SaveState(), snapshot);
    for (std::size_t a = 0; a < ids.size(); ++a)
    {
        EXPECT_EQ(loaded->Deformables().AttachmentImpulse(loadedIds[a]), original->Deformables().AttachmentImpulse(ids[a]));
        EXPECT_GT(original->Deformables().AttachmentImpulse(ids[a]).length(), 0.0f); // they hold weight
    }
    original->Step(200, cStep);
    loaded->Step(200, cStep);
    EXPECT_EQ(loaded->Deformables().StateHash(), original->Deformables().StateHash());
    EXPECT_EQ(test::RawBodyState(loaded->Deformables().Bodies()), test::RawBodyState(original->Deformables().Bodies()));
    EXPECT_EQ(original->Dynamics().getDispatcher()->getNumManifolds(), 0);

    // A world with other attachments, or none, refuses the snapshot.
    SampleWorld bare;
    for (int i = 0; i < 2; ++i)
        bare.Deformables().CreateBody(test::ModalShapeAsset("chair", 1500, 8, 2e6), BodySettings{});
    EXPECT_NE(LoadError(bare.Deformables(), snapshot).find("attachments"), std::string::npos);
    btRigidBody* chair = loaded->Deformables().Bodies()[0];
    loaded->Deformables().Detach(loadedIds[1]);
    loaded->Deformables().Attach(chair, SurfacePoint{0, btVector3(1, 0, 0)}, nullptr, btVector3(0, 3, 0));
    EXPECT_NE(LoadError(loaded->Deformables(), snapshot).find("other bodies or points"), std::string::npos);
}

TEST(WorldState, BadSnapshotsAreRefusedAndChangeNothing)
{
    std::unique_ptr<SampleWorld> world = MakePile();
    world->Step(20, cStep);
    const std::vector<std::uint8_t> good = world->Deformables().SaveState();
    world->Step(5, cStep);
    const std::uint64_t before = world->Deformables().StateHash();
    World& deformables = world->Deformables();

    EXPECT_NE(LoadError(deformables, {}).find("not a bdt::World snapshot"), std::string::npos);
    std::vector<std::uint8_t> bad = good;
    bad.resize(good.size() / 2);
    EXPECT_NE(LoadError(deformables, bad), "");
    bad = good;
    bad[good.size() / 3] ^= 0x40;
    EXPECT_NE(LoadError(deformables, bad).find("checksum"), std::string::npos);
    bad = good;
    bad[0] = 'X';
    EXPECT_NE(LoadError(deformables, bad).find("not a bdt::World snapshot"), std::string::npos);

    // Another world: fewer bodies, or another asset.
    SampleWorld smaller;
    smaller.AddGroundPlane();
    test::AddChairPile(smaller, cChairs - 1, 2);
    EXPECT_NE(LoadError(deformables, smaller.Deformables().SaveState()).find("bodies"), std::string::npos);
    SampleWorld boxes;
    for (std::uint32_t i = 0; i < cChairs; ++i)
    {
        BodySettings desc;
        desc.transform.setOrigin(btVector3(float(i) * 2.0f, 1, 0));
        boxes.Deformables().CreateBody(test::ShapeAsset("box", 300, 4), desc);
    }
    EXPECT_NE(LoadError(deformables, boxes.Deformables().SaveState()).find("another asset"), std::string::npos);
    // A checksummed snapshot whose list of joints, wheel loads or wheel presses (the last three counts, none here)
    // claims more than its bytes hold: refused before anything is made of it.
    for (const auto& [fromEnd, list] : {std::pair(20, "joints"), std::pair(16, "wheel loads"),
                                        std::pair(12, "wheel presses")})
    {
        bad = good;
        const std::uint32_t huge = 0xffffffffu;
        std::memcpy(bad.data() + bad.size() - fromEnd, &huge, sizeof(huge));
        const std::uint64_t checksum = Fnv1a64::Of(std::span<const std::uint8_t>(bad).first(bad.size() - 8));
        std::memcpy(bad.data() + bad.size() - 8, &checksum, sizeof(checksum));
        EXPECT_NE(LoadError(deformables, bad).find(std::string("4294967295 ") + list + " where at most"),
                  std::string::npos)
            << LoadError(deformables, bad);
    }
    EXPECT_EQ(deformables.StateHash(), before);
    // And the good one still loads.
    EXPECT_EQ(LoadError(deformables, good), "");
    EXPECT_NE(deformables.StateHash(), before);
}

} // namespace
} // namespace bdt
