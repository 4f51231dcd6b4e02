// Cross-machine determinism: fixed scenes hashed every step (`World::StateHash`) against the values committed in
// tests/engine_adapter/golden/, one file per scene and Bullet precision. The portable build (no -march=native)
// computes the same bits on every x86-64 CPU for one compiler, build flags and precision, so a fresh clone on any
// such machine reproduces them. A change that alters the physics rewrites them in the same commit:
// `BDT_WRITE_GOLDEN=1 bdt_engine_adapter_tests --gtest_filter='WorldGoldenState.*'` (docs/ROBUSTNESS.md).
#include "support/BulletScenes.h"

#include "core/base/Fnv1a.h"

#include <bdt/adapter/World.h>
#include <bdt/core/asset/AssetFile.h>
#include <bdt/core/bounds/BDTree.h>
#include <bdt/core/model/ProceduralShapes.h>
#include <bdt/bake/SmoothBasis.h>
#include <bdt/samples/SampleWorld.h>
#include <bdt/samples/Scenes.h>
#include <btBulletDynamicsCommon.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace bdt
{
namespace
{

constexpr double cStep = 1.0 / 60.0;
constexpr int cSteps = 300;
constexpr int cCheckpointEvery = 30; ///< Steps between the per-body hashes kept.

/// What a scene's run leaves to compare: the world's hash after every step, every body's at the checkpoints,
/// and a fingerprint of each asset baked for it (a bake that differs explains every step after).
struct Trace
{
    std::map<std::string, std::uint64_t> assets;
    std::vector<std::uint64_t> steps;
    std::map<int, std::vector<std::uint64_t>> bodies; ///< Checkpoint step → body hashes in creation order.
};

std::uint64_t AssetFingerprint(const DeformableAsset& inAsset)
{
    return Fnv1a64::Of(SerializeAsset(inAsset.Tree()));
}

void RunScene(SampleWorld& ioWorld, Trace& ioTrace)
{
    World& world = ioWorld.Deformables();
    for (int step = 1; step <= cSteps; ++step)
    {
        ioWorld.Step(1, cStep);
        ioTrace.steps.push_back(world.StateHash());
        if (step % cCheckpointEvery == 0)
            for (btRigidBody* body : world.Bodies())
                ioTrace.bodies[step].push_back(world.BodyStateHash(body));
    }
}

std::string Hex(std::uint64_t inValue)
{
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(inValue));
    return text;
}

std::string GoldenPath(const std::string& inScene)
{
    const char* precision = sizeof(btScalar) == sizeof(double) ? "double" : "float";
    return std::string(BDT_SOURCE_DIR) + "/tests/engine_adapter/golden/" + inScene + "-" + precision + ".txt";
}

void Write(const std::string& inPath, const Trace& inTrace)
{
    std::ofstream out(inPath);
    out << "# World::StateHash golden values (WorldGoldenStateTest.cpp); rewrite with BDT_WRITE_GOLDEN=1\n";
    for (const auto& [name, fingerprint] : inTrace.assets)
        out << "asset " << name << ' ' << Hex(fingerprint) << '\n';
    for (std::size_t i = 0; i < inTrace.steps.size(); ++i)
        out << "step " << i + 1 << ' ' << Hex(inTrace.steps[i]) << '\n';
    for (const auto& [step, hashes] : inTrace.bodies)
    {
        out << "bodies " << step;
        for (const std::uint64_t hash : hashes)
            out << ' ' << Hex(hash);
        out << '\n';
    }
    ASSERT_TRUE(out.good()) << inPath << ": cannot write";
}

bool Read(const std::string& inPath, Trace& outTrace)
{
    std::ifstream in(inPath);
    if (!in)
        return false;
    std::string line;
    while (std::getline(in, line))
    {
        std::istringstream fields(line);
        std::string kind;
        fields >> kind;
        if (kind == "asset")
        {
            std::string name, hex;
            fields >> name >> hex;
            outTrace.assets[name] = std::stoull(hex, nullptr, 16);
        }
        else if (kind == "step")
        {
            std::size_t step = 0;
            std::string hex;
            fields >> step >> hex;
            if (step != outTrace.steps.size() + 1)
                return false;
            outTrace.steps.push_back(std::stoull(hex, nullptr, 16));
        }
        else if (kind == "bodies")
        {
            int step = 0;
            fields >> step;
            std::string hex;
            while (fields >> hex)
                outTrace.bodies[step].push_back(std::stoull(hex, nullptr, 16));
        }
    }
    return true;
}

/// Compares `inRun` with the committed values, naming the asset, or the first step and body, that differs; or
/// writes them with BDT_WRITE_GOLDEN set.
void CheckAgainstGolden(const std::string& inScene, const Trace& inRun)
{
    const std::string path = GoldenPath(inScene);
    if (std::getenv("BDT_WRITE_GOLDEN") != nullptr)
    {
        Write(path, inRun);
        std::printf("wrote %s\n", path.c_str());
        return;
    }
    Trace golden;
    ASSERT_TRUE(Read(path, golden)) << path << ": missing or malformed (write it with BDT_WRITE_GOLDEN=1)";
    for (const auto& [name, fingerprint] : golden.assets)
    {
        const auto found = inRun.assets.find(name);
        ASSERT_TRUE(found != inRun.assets.end()) << inScene << ": no asset " << name;
        EXPECT_EQ(Hex(found->second), Hex(fingerprint))
            << inScene << ": the bake of " << name << " differs from the committed one (every step after differs)";
    }
    ASSERT_EQ(inRun.steps.size(), golden.steps.size()) << path;
    for (std::size_t i = 0; i < golden.steps.size(); ++i)
    {
        if (inRun.steps[i] == golden.steps[i])
            continue;
        // The first checkpoint at or after the step names the bodies that differ by then.
        std::string bodies;
        for (const auto& [step, hashes] : golden.bodies)
        {
            if (std::size_t(step) < i + 1)
                continue;
            const std::vector<std::uint64_t>& run = inRun.bodies.at(step);
            std::size_t differing = 0;
            for (std::size_t b = 0; b < hashes.size() && b < run.size(); ++b)
                if (run[b] != hashes[b] && ++differing <= 10)
                    bodies += (bodies.empty() ? "" : ", ") + std::to_string(b);
            if (differing > 10)
                bodies += " and " + std::to_string(differing - 10) + " more";
            bodies = "by step " + std::to_string(step) + " bodies " + bodies + " differ (creation order)";
            break;
        }
        ADD_FAILURE() << inScene << ": the state first differs from " << path << " at step " << i + 1
                      << " (StateHash " << Hex(inRun.steps[i]) << ", committed " << Hex(golden.steps[i]) << "); "
                      << bodies;
        return;
    }
}

/// `inCount` bodies of `inAsset` in `inLayers` layers (`AddPile`, seed 1, spacing 0.8, level 7) dropped on the
/// ground in contact model `inModel`, checked against scene `inScene`'s committed values.
void PileScene(const char* inScene, const std::shared_ptr<const DeformableAsset>& inAsset, std::uint32_t inCount,
               std::uint32_t inLayers, EContactModel inModel = EContactModel::Surface)
{
    SampleWorld world;
    world.AddGroundPlane();
    PileSettings pile;
    pile.count = inCount;
    pile.layers = inLayers;
    pile.spacing = 0.8;
    pile.body.proxyLevel = 7;
    pile.body.contactModel = inModel;
    AddPile(world, inAsset, pile);
    Trace trace;
    trace.assets["chair"] = AssetFingerprint(*inAsset);
    RunScene(world, trace);
    CheckAgainstGolden(inScene, trace);
}

/// `AddChairPile`'s 100 chairs (3000 triangles, 10 smooth modes, level 7), in contact model `inModel`.
void ChairPile(EContactModel inModel, const char* inScene)
{
    PileScene(inScene, test::ShapeAsset("chair", 3000, 10), 100, 4, inModel);
}

TEST(WorldGoldenState, HundredChairPileInTheSurfaceModel)
{
    ChairPile(EContactModel::Surface, "chairs-surface");
}

TEST(WorldGoldenState, HundredChairPileInTheProxiesModel)
{
    ChairPile(EContactModel::Proxies, "chairs-proxies");
}

/// The attachments' scene (`AddHangScene`): a smooth curtain, a modal chair and a modal plank.
TEST(WorldGoldenState, HangScene)
{
    HangAssets assets;
    ShapeMesh curtain = MakeShape(EShape::Curtain, 1500);
    assets.curtain = DeformableAsset::Create(std::make_shared<const BDTree>(
        BDTree::Build(MakeSmoothModel(std::move(curtain.positions), std::move(curtain.triangles), 6))));
    assets.chair = test::ModalShapeAsset("chair", 1500, 8, 2e6);
    assets.plank = test::ModalShapeAsset("beam", 800, 8, 2e8);
    SampleWorld world;
    AddHangScene(world, assets);
    Trace trace;
    trace.assets["curtain"] = AssetFingerprint(*assets.curtain);
    trace.assets["chair"] = AssetFingerprint(*assets.chair);
    trace.assets["plank"] = AssetFingerprint(*assets.plank);
    RunScene(world, trace);
    CheckAgainstGolden("hang", trace);
}

/// Twelve modal chairs (1500 triangles, 8 vibration modes) dropped in a pile.
TEST(WorldGoldenState, ModalChairPile)
{
    PileScene("modal-pile", test::ModalShapeAsset("chair", 1500, 8, 2e6), 12, 2);
}

} // namespace
} // namespace bdt
