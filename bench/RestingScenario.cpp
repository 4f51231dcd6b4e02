// `bdt-bench resting`: do bodies rest ON the surfaces they are put on, come to rest and fall asleep? Slabs
// carrying a rigid box and a ball or 16 balls, two stacked deformable cubes, a chair standing on its legs or
// lying on a slab, and a slab and a chair on a triangle-mesh floor and on a heightfield, each simulated for a
// few seconds at 60 Hz once per contact model (`EContactModel`, side by side in one run, stepped in turn).
// Per body: the gap from its lowest point down to what it rests on, over the last second (from the deformed
// meshes, never from the proxy spheres), the largest speed of any point of it, its modal energy, whether it
// sleeps and whether it is still on its support (`RestingMeasures.h`).
#include "RestingMeasures.h"
#include "Scenario.h"

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btBvhTriangleMeshShape.h>
#include <BulletCollision/CollisionShapes/btHeightfieldTerrainShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/CollisionShapes/btTriangleMesh.h>
#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <algorithm>
#include <array>
#include <bdt/samples/SampleWorld.h>
#include <bdt/bake/ModalBasis.h>
#include <bdt/bake/SmoothBasis.h>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/bounds/BDTree.h>
#include <bdt/core/model/ProceduralShapes.h>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <numbers>

namespace bdt::bench
{
namespace
{

using Clock = std::chrono::steady_clock;

constexpr double cTimeStep = 1.0 / 60.0;
constexpr int cMeasuredSteps = 60; // the last second
constexpr double cGap = 0.01;      // m, between everything and what it is put on, at the start
constexpr double cDensity = 1000.0, cYoung = 1.0e6, cPoisson = 0.4;
constexpr double cBoxHalf = 0.1, cBoxMass = 8.0, cBallRadius = 0.05, cBallMass = 0.5;
constexpr double cFloorHalf = 5.0; // m, the mesh and heightfield floors span [−5, 5] in x and z
constexpr int cFloorCells = 20;

struct RestingOptions
{
    std::string json;
    std::string contacts = "both";  // surface, proxies or both
    std::vector<std::string> cases; // empty: all
    double seconds = 5.0;
    std::uint32_t level = 10;
};

double SecondsSince(Clock::time_point inStart)
{
    return std::chrono::duration<double>(Clock::now() - inStart).count();
}

const char* ContactName(EContactModel inModel)
{
    return inModel == EContactModel::Surface ? "surface" : "proxies";
}

// --- Assets: each baked on first use, kept for every case and contact model ---

enum class EAsset : std::uint8_t
{
    SmoothSlab3k,
    SmoothSlab20k,
    ModalSlab3k,
    ModalSlab20k,
    ModalCube,
    ModalChair,
};

struct AssetRecipe
{
    EAsset asset;
    const char* name;
    EShape shape;
    std::uint32_t triangles;
    bool modal;  // the modal basis (E, ν, ρ above, default resolution, no Rayleigh damping), else smooth
    double size; // the procedural mesh is scaled by this before the bake
};

constexpr std::array<AssetRecipe, 6> cRecipes = {{
    {EAsset::SmoothSlab3k, "slab 3k smooth", EShape::Slab, 3000, false, 1.0},
    {EAsset::SmoothSlab20k, "slab 20k smooth", EShape::Slab, 20000, false, 1.0},
    {EAsset::ModalSlab3k, "slab 3k modal", EShape::Slab, 3000, true, 1.0},
    {EAsset::ModalSlab20k, "slab 20k modal", EShape::Slab, 20000, true, 1.0},
    {EAsset::ModalCube, "cube 0.5 m modal", EShape::Box, 3000, true, 0.5},
    {EAsset::ModalChair, "chair modal", EShape::Chair, 18000, true, 1.0},
}};

constexpr std::uint32_t cModes = 10;

// Where a body of an asset reaches at q = 0, turned by a rotation (rest axes to world), relative to its rest
// frame's origin: the bounds of its rest vertices, and those grown to hold its contact proxies at level L.
struct Reach
{
    Eigen::AlignedBox3d mesh, withProxies;
};

Reach RestReach(const DeformableAsset& inAsset, std::uint32_t inLevel, const Mat3d& inTurn)
{
    Reach reach;
    for (const Vec3f& p : inAsset.GetModel().Positions())
        reach.mesh.extend(inTurn * p.cast<double>());
    reach.withProxies = reach.mesh;
    const ContactProxies& proxies = *inAsset.Proxies(inLevel);
    for (std::uint32_t node = 0; node < proxies.VisitCount(); ++node)
        if (proxies.IsProxy(node))
        {
            const float* row = proxies.Row(node);
            const Vec3d centre = inTurn * Vec3d(row[0], row[1], row[2]);
            reach.withProxies.extend(centre - Vec3d::Constant(row[3]));
            reach.withProxies.extend(centre + Vec3d::Constant(row[3]));
        }
    return reach;
}

/// The cases' assets, each baked on first use and shared by every case and contact model after.
class AssetCache
{
public:
    /// `inLevel`: the proxy level whose reach the bake's line reports.
    explicit AssetCache(std::uint32_t inLevel) : mLevel(inLevel) {}

    /// The asset, baked now if it has not been (a line on stdout says what the bake made and took).
    const std::shared_ptr<const DeformableAsset>& Get(EAsset inAsset)
    {
        std::shared_ptr<const DeformableAsset>& slot = mAssets[inAsset];
        if (!slot)
            slot =
                Bake(*std::find_if(cRecipes.begin(), cRecipes.end(),
                                   [&](const AssetRecipe& inRecipe) { return inRecipe.asset == inAsset; }));
        return slot;
    }

private:
    std::shared_ptr<const DeformableAsset> Bake(const AssetRecipe& inRecipe) const
    {
        const auto start = Clock::now();
        ShapeMesh mesh = MakeShape(inRecipe.shape, inRecipe.triangles);
        for (Vec3f& p : mesh.positions)
            p *= float(inRecipe.size);
        ModalBakeSettings bake;
        bake.modes = cModes;
        bake.material = {cYoung, cPoisson, cDensity};
        Model model = inRecipe.modal
                          ? MakeModalModel(std::move(mesh.positions), std::move(mesh.triangles), bake)
                          : MakeSmoothModel(std::move(mesh.positions), std::move(mesh.triangles), cModes);
        auto asset = DeformableAsset::Create(std::make_shared<const BDTree>(BDTree::Build(model)));
        const Reach reach = RestReach(*asset, mLevel, Mat3d::Identity());
        std::printf(
            "baked %-17s %6zu triangles in %5.1f s, %6.1f kg; proxies at L = %u reach %.1f mm below and "
            "%.1f mm above the mesh\n",
            inRecipe.name, asset->GetModel().TriangleCount(), SecondsSince(start),
            cDensity * asset->Mass().volume, mLevel,
            1e3 * (reach.mesh.min().y() - reach.withProxies.min().y()),
            1e3 * (reach.withProxies.max().y() - reach.mesh.max().y()));
        std::fflush(stdout);
        return asset;
    }

    std::uint32_t mLevel;
    std::map<EAsset, std::shared_ptr<const DeformableAsset>> mAssets;
};

// --- Scenes ---

enum class EFloor : std::uint8_t
{
    Plane,       ///< btStaticPlaneShape y = 0.
    Mesh,        ///< btBvhTriangleMeshShape: a flat grid at y = 0.
    Heightfield, ///< btHeightfieldTerrainShape: flat at y = 0.
};

// One case under one contact model: its world and the bodies measured. The floor's data outlive the world.
struct Scene
{
    EContactModel contacts = EContactModel::Surface;
    std::unique_ptr<btTriangleMesh> floorMesh;
    std::vector<float> floorHeights;
    std::unique_ptr<SampleWorld> world;
    std::vector<Watched> bodies;
    Support floor;
    double marginMm = 0.0; // the deformables' margin
    std::vector<double> stepMs;
};

void AddFloor(Scene& ioScene, EFloor inFloor)
{
    if (inFloor == EFloor::Plane)
    {
        ioScene.world->AddGroundPlane();
        return;
    }
    ioScene.floor.floorHalfSize = cFloorHalf;
    const double cell = 2.0 * cFloorHalf / cFloorCells;
    if (inFloor == EFloor::Mesh)
    {
        ioScene.floorMesh = std::make_unique<btTriangleMesh>();
        const auto at = [&](int inI, int inK)
        { return btVector3(btScalar(-cFloorHalf + cell * inI), 0, btScalar(-cFloorHalf + cell * inK)); };
        for (int i = 0; i < cFloorCells; ++i)
            for (int k = 0; k < cFloorCells; ++k)
            {
                // Counter-clockwise seen from +y.
                ioScene.floorMesh->addTriangle(at(i, k), at(i, k + 1), at(i + 1, k + 1));
                ioScene.floorMesh->addTriangle(at(i, k), at(i + 1, k + 1), at(i + 1, k));
            }
        ioScene.world->AddStatic(std::make_unique<btBvhTriangleMeshShape>(ioScene.floorMesh.get(), true),
                                 btTransform::getIdentity());
        return;
    }
    // Heights 0 within [−1, 1]: Bullet centres the field on the middle of that range, y = 0.
    ioScene.floorHeights.assign(std::size_t((cFloorCells + 1) * (cFloorCells + 1)), 0.0f);
    auto field = std::make_unique<btHeightfieldTerrainShape>(
        cFloorCells + 1, cFloorCells + 1, ioScene.floorHeights.data(), btScalar(-1), btScalar(1), 1, false);
    field->setLocalScaling(btVector3(btScalar(cell), 1, btScalar(cell)));
    ioScene.world->AddStatic(std::move(field), btTransform::getIdentity());
}

// A deformable body placed, and the top of its reach at the start (world y, m; `Builder::Deformable`).
struct Placed
{
    btRigidBody* body;
    double top;
};

// Builds a case's bodies into a scene under its contact model.
struct Builder
{
    Scene& scene;
    AssetCache& assets;
    std::uint32_t level;

    // A deformable of `inAsset` turned by `inTurn` (rest axes to world), its mesh's bounds centred on x, z
    // and its lowest reach `cGap` above `inBase`, resting on `inSupport`. Its reach, below and above, is
    // where its contacts start under the scene's model: its mesh (surface), or its proxies where they stand
    // out (proxies), so that under either model nothing starts in contact and everything falls `cGap`.
    Placed Deformable(const std::string& inName, EAsset inAsset, const Support& inSupport, double inX,
                      double inZ, double inBase, const Mat3d& inTurn = Mat3d::Identity())
    {
        const std::shared_ptr<const DeformableAsset> asset = assets.Get(inAsset);
        const Reach reach = RestReach(*asset, level, inTurn);
        const Eigen::AlignedBox3d& touch =
            scene.contacts == EContactModel::Proxies ? reach.withProxies : reach.mesh;
        const Vec3d origin(inX - reach.mesh.center().x(), inBase + cGap - touch.min().y(),
                           inZ - reach.mesh.center().z());
        BodySettings desc; // world = turn·rest + origin
        desc.transform = btTransform(ToBtMatrix(inTurn), ToBtVector(origin));
        desc.mass = cDensity * asset->Mass().volume * std::pow(desc.scale, 3);
        desc.proxyLevel = level;
        desc.contactModel = scene.contacts;
        btRigidBody* body = scene.world->Deformables().CreateBody(asset, desc);
        scene.marginMm = std::max(scene.marginMm, 1e3 * double(body->getCollisionShape()->getMargin()));
        scene.bodies.push_back({inName, body, inSupport});
        return {body, origin.y() + touch.max().y()};
    }

    // The rigid box (8 kg, side 0.2 m) or ball (0.5 kg, radius 5 cm) with its lowest point `cGap` above
    // `inBase`, centred on x, z.
    void Box(const std::string& inName, const Support& inSupport, double inX, double inZ, double inBase)
    {
        const btVector3 centre(btScalar(inX), btScalar(inBase + cGap + cBoxHalf), btScalar(inZ));
        btRigidBody* body = scene.world->AddRigid(std::make_unique<btBoxShape>(btVector3(1, 1, 1) * cBoxHalf),
                                                  btTransform(btQuaternion::getIdentity(), centre), cBoxMass);
        scene.bodies.push_back({inName, body, inSupport});
    }
    void Ball(const std::string& inName, const Support& inSupport, double inX, double inZ, double inBase)
    {
        const btVector3 centre(btScalar(inX), btScalar(inBase + cGap + cBallRadius), btScalar(inZ));
        btRigidBody* body =
            scene.world->AddRigid(std::make_unique<btSphereShape>(btScalar(cBallRadius)),
                                  btTransform(btQuaternion::getIdentity(), centre), cBallMass);
        scene.bodies.push_back({inName, body, inSupport});
    }
};

// --- Cases ---

void SlabWithBoxAndBall(Builder& ioBuild, EAsset inSlab)
{
    AddFloor(ioBuild.scene, EFloor::Plane);
    const Placed slab = ioBuild.Deformable("slab", inSlab, ioBuild.scene.floor, 0.0, 0.0, 0.0);
    ioBuild.Box("box", {slab.body}, -0.25, 0.0, slab.top);
    ioBuild.Ball("ball", {slab.body}, 0.25, 0.0, slab.top);
}

void SlabWithBalls(Builder& ioBuild)
{
    AddFloor(ioBuild.scene, EFloor::Plane);
    const Placed slab = ioBuild.Deformable("slab", EAsset::ModalSlab20k, ioBuild.scene.floor, 0.0, 0.0, 0.0);
    for (int i = 0; i < 4; ++i)
        for (int k = 0; k < 4; ++k)
            ioBuild.Ball("ball " + std::to_string(4 * i + k), {slab.body}, -0.35 + 0.7 * i / 3.0,
                         -0.35 + 0.7 * k / 3.0, slab.top);
}

void StackedCubes(Builder& ioBuild)
{
    AddFloor(ioBuild.scene, EFloor::Plane);
    const Placed lower =
        ioBuild.Deformable("lower cube", EAsset::ModalCube, ioBuild.scene.floor, 0.0, 0.0, 0.0);
    ioBuild.Deformable("upper cube", EAsset::ModalCube, {lower.body}, 0.0, 0.0, lower.top);
}

void StandingChair(Builder& ioBuild)
{
    AddFloor(ioBuild.scene, EFloor::Plane);
    ioBuild.Deformable("chair", EAsset::ModalChair, ioBuild.scene.floor, 0.0, 0.0, 0.0);
}

void ChairOnSlab(Builder& ioBuild)
{
    AddFloor(ioBuild.scene, EFloor::Plane);
    const Placed slab = ioBuild.Deformable("slab", EAsset::ModalSlab20k, ioBuild.scene.floor, 0.0, 0.0, 0.0);
    // On its side: a quarter turn about z puts the chair's −x side down.
    const Mat3d side = Eigen::AngleAxisd(0.5 * std::numbers::pi, Vec3d::UnitZ()).toRotationMatrix();
    ioBuild.Deformable("chair", EAsset::ModalChair, {slab.body}, 0.0, 0.0, slab.top, side);
}

void SlabAndChairOn(Builder& ioBuild, EFloor inFloor)
{
    AddFloor(ioBuild.scene, inFloor);
    ioBuild.Deformable("slab", EAsset::ModalSlab20k, ioBuild.scene.floor, -0.8, 0.0, 0.0);
    ioBuild.Deformable("chair", EAsset::ModalChair, ioBuild.scene.floor, 0.8, 0.0, 0.0);
}

// A case: its name, the assets it uses (baked before it runs) and how it builds its scene.
struct CaseSpec
{
    const char* name;
    std::vector<EAsset> assets;
    void (*build)(Builder&);
};

const std::array<CaseSpec, 10> cCases = {{
    {"smooth-3k",
     {EAsset::SmoothSlab3k},
     [](Builder& ioBuild) { SlabWithBoxAndBall(ioBuild, EAsset::SmoothSlab3k); }},
    {"smooth-20k",
     {EAsset::SmoothSlab20k},
     [](Builder& ioBuild) { SlabWithBoxAndBall(ioBuild, EAsset::SmoothSlab20k); }},
    {"modal-3k",
     {EAsset::ModalSlab3k},
     [](Builder& ioBuild) { SlabWithBoxAndBall(ioBuild, EAsset::ModalSlab3k); }},
    {"modal-20k",
     {EAsset::ModalSlab20k},
     [](Builder& ioBuild) { SlabWithBoxAndBall(ioBuild, EAsset::ModalSlab20k); }},
    {"balls-20k", {EAsset::ModalSlab20k}, SlabWithBalls},
    {"boxes", {EAsset::ModalCube}, StackedCubes},
    {"chair", {EAsset::ModalChair}, StandingChair},
    {"chair-on-slab", {EAsset::ModalSlab20k, EAsset::ModalChair}, ChairOnSlab},
    {"mesh-floor",
     {EAsset::ModalSlab20k, EAsset::ModalChair},
     [](Builder& ioBuild) { SlabAndChairOn(ioBuild, EFloor::Mesh); }},
    {"heightfield",
     {EAsset::ModalSlab20k, EAsset::ModalChair},
     [](Builder& ioBuild) { SlabAndChairOn(ioBuild, EFloor::Heightfield); }},
}};

// --- Running and reporting ---

std::vector<std::string> CaseNames()
{
    std::vector<std::string> names;
    for (const CaseSpec& spec : cCases)
        names.emplace_back(spec.name);
    return names;
}

void PrintHeader()
{
    std::printf("%-14s %-8s %-11s %8s %9s %9s %9s %10s %10s %10s %6s %4s %3s\n", "case", "contacts", "body",
                "step ms", "gap max", "gap mean", "gap min", "speed m/s", "modal J", "ringing J", "asleep", "off",
                "ok");
}

void PrintRow(const char* inCase, const Scene& inScene, double inStepMs, const BodyReport& inBody)
{
    std::printf("%-14s %-8s %-11s %8.3f %9.3f %9.3f %9.3f %10.5f %10.3g %10.3g %6s %4d %3s\n", inCase,
                ContactName(inScene.contacts), inBody.name.c_str(), inStepMs, inBody.gapMaxMm,
                inBody.gapMeanMm, inBody.gapMinMm, inBody.speedMax, inBody.modalEnergy, inBody.vibrationEnergy,
                inBody.asleep ? "yes" : "no", inBody.off ? 1 : 0,
                inBody.Accepted(inScene.marginMm) ? "yes" : "no");
}

// Per contact model: bodies measured, and those that met the acceptance.
using Tally = std::map<EContactModel, std::pair<int, int>>;

// Runs one case under each model, the scenes stepped in turn; prints its rows and returns its report entries.
std::vector<nlohmann::json> RunCase(const CaseSpec& inCase, const RestingOptions& inOptions,
                                    const std::vector<EContactModel>& inModels, AssetCache& ioAssets,
                                    Tally& ioTally)
{
    std::vector<std::unique_ptr<Scene>> scenes;
    std::vector<RestingMeter> meters;
    for (const EContactModel model : inModels)
    {
        auto scene = std::make_unique<Scene>();
        scene->contacts = model;
        scene->world = std::make_unique<SampleWorld>();
        Builder build{*scene, ioAssets, inOptions.level};
        inCase.build(build);
        meters.emplace_back(scene->bodies);
        scenes.push_back(std::move(scene));
    }
    const int steps = std::max(1, int(std::lround(inOptions.seconds / cTimeStep)));
    for (int step = 1; step <= steps; ++step)
        for (std::size_t s = 0; s < scenes.size(); ++s)
        {
            const auto start = Clock::now();
            scenes[s]->world->Step(1, cTimeStep);
            scenes[s]->stepMs.push_back(1e3 * SecondsSince(start));
            if (step > steps - cMeasuredSteps)
                meters[s].Sample();
        }
    std::vector<nlohmann::json> entries;
    for (std::size_t s = 0; s < scenes.size(); ++s)
    {
        const Scene& scene = *scenes[s];
        const double stepMs = Median(scene.stepMs);
        nlohmann::json bodies = nlohmann::json::array();
        for (const BodyReport& body : meters[s].Report())
        {
            PrintRow(inCase.name, scene, stepMs, body);
            bodies.push_back(body.Json());
            ioTally[scene.contacts].first += 1;
            ioTally[scene.contacts].second += body.Accepted(scene.marginMm) ? 1 : 0;
        }
        entries.push_back({{"case", inCase.name},
                           {"contacts", ContactName(scene.contacts)},
                           {"margin_mm", scene.marginMm},
                           {"step_ms_median", stepMs},
                           {"bodies", bodies}});
    }
    std::fflush(stdout);
    return entries;
}

int RunResting(const RestingOptions& inOptions)
{
    const auto start = Clock::now();
    std::vector<EContactModel> models;
    if (inOptions.contacts != "proxies")
        models.push_back(EContactModel::Surface);
    if (inOptions.contacts != "surface")
        models.push_back(EContactModel::Proxies);
    const std::vector<std::string> chosen = inOptions.cases.empty() ? CaseNames() : inOptions.cases;
    std::printf(
        "resting: %.1f s at 60 Hz per case and contact model, proxy level %u; everything dropped from %.0f "
        "cm above where it first touches what it is put on (under proxies: above the contact proxies, which "
        "stand out of the mesh as the bake lines say); gaps (mm) from each body's lowest point down to its "
        "support's surface, and speeds, over the last second; ok: gap in [-2, 2 + margin] mm, speed <= "
        "0.005 m/s, on its support, asleep\n",
        inOptions.seconds, inOptions.level, 1e2 * cGap);
    AssetCache assets(inOptions.level);
    Tally tally;
    std::vector<nlohmann::json> entries;
    bool headed = false;
    for (const CaseSpec& spec : cCases)
    {
        if (std::find(chosen.begin(), chosen.end(), spec.name) == chosen.end())
            continue;
        // Bake what the case needs first, so that the bakes' lines come before the table.
        for (const EAsset asset : spec.assets)
            assets.Get(asset);
        if (!headed)
            PrintHeader();
        headed = true;
        for (nlohmann::json& entry : RunCase(spec, inOptions, models, assets, tally))
            entries.push_back(std::move(entry));
    }
    for (const EContactModel model : models)
        std::printf("%s: %d of %d bodies rest as accepted\n", ContactName(model), tally[model].second,
                    tally[model].first);
    std::printf("resting: %.1f s in all\n", SecondsSince(start));
    std::fflush(stdout);
    if (!inOptions.json.empty() && !WriteReport({{"scenario", "resting"},
                                                 {"seconds", inOptions.seconds},
                                                 {"level", inOptions.level},
                                                 {"cases", entries}},
                                                inOptions.json))
        return 1;
    return 0;
}

const bool sRegistered = RegisterScenario(
    "resting",
    "bodies put down on the ground, on slabs and on each other: gaps, speeds, sleep, per contact model",
    [](CLI::App& ioCommand) -> ScenarioRun
    {
        auto options = std::make_shared<RestingOptions>();
        AddJsonOption(ioCommand, options->json);
        ioCommand.add_option("--contacts", options->contacts, "Contact models: surface, proxies or both")
            ->check(CLI::IsMember({"surface", "proxies", "both"}));
        ioCommand.add_option("--cases", options->cases, "Cases to run (default all)")
            ->check(CLI::IsMember(CaseNames()));
        AddRangeOption(ioCommand, "--seconds", options->seconds, "Simulated seconds per case", 1.0 / 60.0,
                       3600.0);
        AddRangeOption(ioCommand, "--level", options->level, "Contact proxy level L", 0u, 60u);
        return [options] { return RunResting(*options); };
    });

} // namespace
} // namespace bdt::bench
