// Fuzz target of the `.bdt` loader (`DeserializeAsset`), for libFuzzer (`./dev fuzz asset`) and for the
// replay driver that ctest runs over the seed corpus and every crash found (`fuzz.asset_replay`).
//
// Each input is tried twice: as given, and with the header's checksum recomputed over its payload, so that
// mutated payloads get past the checksum and reach the section and tree validation. Whatever loads must then
// be safe to use: the input's own bytes choose q (any float, NaN and huge values included), and the tree is
// queried at the proxies and at the leaves against itself and a plane, and ray cast.

#include "FuzzSupport.h"

#include "core/base/Fnv1a.h"

#include <bdt/core/asset/AssetFile.h>
#include <bdt/core/base/Error.h>
#include <bdt/core/bounds/ContactProxies.h>
#include <bdt/core/queries/TreeQueries.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

namespace
{

constexpr std::size_t cHeaderBytes = 56;   // docs/ASSET_FORMAT.md
constexpr std::size_t cChecksumOffset = 48; // the header's last field, FNV-1a 64 of the payload

/// Uses a loaded tree the way a world would: q from the input's bytes, then every kind of query. Large
/// trees are only loaded (the queries' cost would slow the fuzzer, not reach new code).
void Exercise(const std::shared_ptr<const bdt::BDTree>& inTree, std::span<const std::uint8_t> inBytes)
{
    if (inTree->NodeCount() > 4096)
        return;
    const std::uint32_t modes = inTree->GetModel().ModeCount();
    bdt::fuzz::ByteSource source(inBytes);
    for (const std::uint32_t level : {0u, 3u, 64u})
    {
        auto proxies = std::make_shared<const bdt::ContactProxies>(inTree, level);
        bdt::TreeState a(proxies);
        bdt::TreeState b(proxies);
        std::vector<float> q(modes);
        for (float& value : q)
            value = source.Float();
        // A rejected q (NaN, too large) leaves the state at its last accepted q; both are valid to query.
        (void)a.SetQ(q);
        std::ranges::reverse(q);
        (void)b.SetQ(q);

        bdt::QueryStats stats;
        std::vector<bdt::ProxyContact> proxyContacts;
        bdt::DeformedBody bodyA{&a, bdt::Pose(), 1.0, 0.0};
        bdt::DeformedBody bodyB{&b, bdt::Pose(), 1.0, 0.0};
        bodyB.pose.translation = bdt::Vec3d(0.1, 0.05, 0.0);
        bdt::CollideProxies(bodyA, bodyB, proxyContacts, stats);
        (void)bdt::CollideProxiesBudgeted(bodyA, bodyB, 17, proxyContacts, stats);
        std::vector<bdt::TrianglePair> trianglePairs;
        bdt::CollideTriangles(bodyA, bodyB, trianglePairs, stats);
        bdt::CollideProxies(bodyA, bdt::Plane{bdt::Vec3d::UnitY(), 0.0}, proxyContacts, stats);
        std::vector<bdt::TriangleContact> triangleContacts;
        bdt::CollideTriangles(bodyA, bdt::Sphere{bdt::Vec3d::Zero(), 0.5}, triangleContacts, stats);
        (void)bdt::RayCast(bodyA, bdt::Ray{bdt::Vec3d(0.0, 10.0, 0.0), bdt::Vec3d(0.0, -1.0, 0.0), 100.0},
                           stats);
    }
}

void TryLoad(std::span<const std::uint8_t> inBytes)
{
    std::shared_ptr<const bdt::BDTree> tree;
    try
    {
        tree = std::make_shared<const bdt::BDTree>(bdt::DeserializeAsset(inBytes));
    }
    catch (const bdt::Error& error)
    {
        bdt::fuzz::CheckOneLine(error.what());
        return;
    }
    Exercise(tree, inBytes);
    // What loads must save to the same bytes: the loader keeps nothing the writer would not write.
    const std::vector<std::uint8_t> saved = bdt::SerializeAsset(*tree);
    bdt::fuzz::Require(std::ranges::equal(saved, inBytes), "a loaded asset does not save to its own bytes");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* inData, std::size_t inSize)
{
    const std::span<const std::uint8_t> bytes(inData, inSize);
    TryLoad(bytes);
    if (inSize >= cHeaderBytes)
    {
        std::vector<std::uint8_t> repaired(bytes.begin(), bytes.end());
        const std::uint64_t checksum = bdt::Fnv1a64::Of(bytes.subspan(cHeaderBytes));
        for (int k = 0; k < 8; ++k)
            repaired[cChecksumOffset + k] = static_cast<std::uint8_t>(checksum >> (8 * k));
        if (!std::ranges::equal(repaired, bytes))
            TryLoad(repaired);
    }
    return 0;
}
