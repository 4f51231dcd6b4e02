// `bdt-bench scaling`: collision cost per step against mesh size. One shape (a subdivided unit box) at
// several triangle counts with the same M smooth fields, animated (q prescribed, a few millimetres of
// vibration), with rigid balls resting on its top face. The BD-Tree (`DeformableShape`, contacts at proxy
// level L, spheres updated from q alone) against Bullet's btGImpactMeshShape with every vertex rewritten and
// `updateBound()` every step, side by side in one run at each size, with a rigid btBoxShape of the same
// extents under the same balls as the floor: what the scene costs when nothing deforms.
#include "BulletReducedScene.h"
#include "GImpactMesh.h"
#include "Scenario.h"
#include "reference/DeformVertices.h"

#include <BulletCollision/CollisionDispatch/btCollisionConfiguration.h>
#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/Gimpact/btGImpactCollisionAlgorithm.h>
#include <BulletCollision/Gimpact/btGImpactShape.h>
#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <LinearMath/btPoolAllocator.h>
#include <algorithm>
#include <bdt/samples/SampleWorld.h>
#include <bdt/bake/BulletReducedFiles.h>
#include <bdt/bake/ModalBasis.h>
#include <bdt/bake/SmoothBasis.h>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/asset/DeformableAsset.h>
#include <bdt/core/base/Error.h>
#include <bdt/core/model/ProceduralShapes.h>
#include <bdt/core/bounds/ContactProxies.h>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <unistd.h>
#include <utility>

namespace bdt::bench
{
namespace
{

using Clock = std::chrono::steady_clock;

struct ScalingOptions
{
    std::string json;
    std::vector<std::uint32_t> triangles = {1000, 10000, 100000};
    std::uint32_t modes = 10;
    std::uint32_t level = 10;
    std::uint32_t balls = 4; ///< Per side of the grid of balls on the top face.
    int steps = 120;
    double amplitude = 0.005; ///< Largest vertex displacement of each field's vibration, m.
    /// Triangle counts of the comparison with Bullet's reduced deformable body (a voxel-lattice box whose
    /// tetrahedra's boundary is the collision surface of both).
    std::vector<std::uint32_t> reduced = {1000};
    std::string series; ///< Collision ms against triangles as a whitespace table (for gnuplot), if set.
};

constexpr double cTimeStep = 1.0 / 60.0;
constexpr double cBallRadius = 0.05;
const Vec3d cBoxCentre(0.0, 0.5, 0.0); // where the box's rest-frame origin is placed: it stands on y = 0

double MsSince(Clock::time_point inStart)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - inStart).count();
}

// q at time t: each field vibrates at its own frequency, scaled so that its largest vertex displacement is
// `inAmplitude`.
void PrescribedQ(const std::vector<double>& inScale, double inTime, std::vector<float>& outQ)
{
    outQ.resize(inScale.size());
    for (std::size_t j = 0; j < inScale.size(); ++j)
        outQ[j] = float(inScale[j] *
                        std::sin(2.0 * 3.14159265358979 * (1.3 + 0.37 * double(j)) * inTime + double(j)));
}

// The balls' centres: a grid of `inPerSide` × `inPerSide` over x, z in [−0.35, 0.35] m, 1 cm above `inTopY`.
std::vector<Vec3d> BallCentres(std::uint32_t inPerSide, double inTopY)
{
    std::vector<Vec3d> centres;
    for (std::uint32_t i = 0; i < inPerSide; ++i)
        for (std::uint32_t k = 0; k < inPerSide; ++k)
        {
            const double x = -0.35 + 0.7 * (inPerSide > 1 ? double(i) / (inPerSide - 1) : 0.5);
            const double z = -0.35 + 0.7 * (inPerSide > 1 ? double(k) / (inPerSide - 1) : 0.5);
            centres.emplace_back(x, inTopY + cBallRadius + 0.01, z);
        }
    return centres;
}

// The balls (0.2 kg each) at those centres.
void AddBalls(SampleWorld& ioWorld, const std::vector<Vec3d>& inCentres)
{
    for (const Vec3d& centre : inCentres)
        ioWorld.AddRigid(std::make_unique<btSphereShape>(btScalar(cBallRadius)),
                         btTransform(btQuaternion::getIdentity(), ToBtVector(centre)), 0.2, 0.6f);
}

// The height (world y, m) a ball's centre has when the ball, lowered straight down at its centre's x and z,
// first touches the contact proxies at level `inLevel` of a body of `inAsset` at rest placed by
// `inWorldFromLocal` (unscaled): the spheres the BD-Tree pushes with, which stand above the flat faces they
// wrap. `inFloor` if it touches none higher.
double ProxyTouchHeight(const DeformableAsset& inAsset, std::uint32_t inLevel,
                        const btTransform& inWorldFromLocal, const Vec3d& inCentre, double inFloor)
{
    const ContactProxies& proxies = *inAsset.Proxies(inLevel);
    const Pose principal = inAsset.Mass().ToPrincipal(); // rest frame -> the body's local frame
    double height = inFloor;
    for (std::uint32_t node = 0; node < proxies.VisitCount(); ++node)
    {
        if (!proxies.IsProxy(node))
            continue;
        const float* row = proxies.Row(node);
        const Vec3d rest(row[0], row[1], row[2]);
        const Vec3d centre = ToVec3d(inWorldFromLocal * ToBtVector(principal.Apply(rest)));
        const double reach = double(row[3]) + cBallRadius;
        const double dx = centre.x() - inCentre.x(), dz = centre.z() - inCentre.z();
        const double across = dx * dx + dz * dz;
        if (across < reach * reach)
            height = std::max(height, centre.y() + std::sqrt(reach * reach - across));
    }
    return height;
}

// The balls of `inCentres` (world, m) moved up to 1 cm above what they would touch first on a body of
// `inAsset` at rest placed by `inWorldFromLocal`: its proxy spheres at level `inLevel` (`ProxyTouchHeight`),
// or, where they stand lower, the height the balls were given.
std::vector<Vec3d> AboveProxies(std::vector<Vec3d> inCentres, const DeformableAsset& inAsset,
                                std::uint32_t inLevel, const btTransform& inWorldFromLocal)
{
    for (Vec3d& centre : inCentres)
        centre.y() = 0.01 + ProxyTouchHeight(inAsset, inLevel, inWorldFromLocal, centre, centre.y() - 0.01);
    return inCentres;
}

// How many of the world's balls (its sphere bodies) have their centre above `inTop` (world y, m): those still
// on the body's top face rather than rolled off it. A scene that lost balls pays for fewer contacts, so its
// cost is not comparable with the others'.
int BallsAbove(const btCollisionWorld& inWorld, double inTop)
{
    const btCollisionObjectArray& objects = inWorld.getCollisionObjectArray();
    int count = 0;
    for (int i = 0; i < objects.size(); ++i)
        if (objects[i]->getCollisionShape()->getShapeType() == SPHERE_SHAPE_PROXYTYPE &&
            double(objects[i]->getWorldTransform().getOrigin().y()) > inTop)
            ++count;
    return count;
}

// One line on stdout when any scene ended with fewer than `inBalls` balls on its body: each scene's count
// with its name ("the BD-Tree body", "GImpact's", ...), in the table's order.
void WarnIfBallsLost(int inBalls, std::initializer_list<std::pair<const char*, int>> inOnTop)
{
    if (std::all_of(inOnTop.begin(), inOnTop.end(),
                    [inBalls](const auto& inScene) { return inScene.second == inBalls; }))
        return;
    std::printf("  warning: of %d balls,", inBalls);
    const char* separator = "";
    for (const auto& [name, onTop] : inOnTop)
    {
        std::printf("%s %d ended on %s", separator, onTop, name);
        separator = ",";
    }
    std::printf(
        ": the scenes collide different contacts and their costs are not comparable (docs/BENCHMARKS.md, "
        "\"Balls that roll off\")\n");
}

// Scenes take turns by blocks of `cBlockSteps` steps: the first scene's `(step, k)` for the steps of a block,
// then the next scene's for the same steps (k: the step's index in its block), and so on, so that a slow
// moment of the machine falls on all, while each block runs with the caches its own scene leaves (per-step
// turns would make each scene start every step with the other's data in cache: at 100k triangles the refit's
// 20 MB).
constexpr int cBlockSteps = 20;
template <class... Scenes> void TakeTurns(int inSteps, Scenes&&... inScenes)
{
    for (int first = 0; first < inSteps; first += cBlockSteps)
    {
        const int last = std::min(inSteps, first + cBlockSteps);
        const auto block = [&](auto& ioScene)
        {
            for (int step = first; step < last; ++step)
                ioScene(step, std::size_t(step - first));
        };
        (block(inScenes), ...);
    }
}

// The steps after the balls have landed, the last two thirds, over which the medians are taken.
std::vector<double> AfterLanding(const std::vector<double>& inPerStep)
{
    return std::vector<double>(inPerStep.begin() + std::ptrdiff_t(inPerStep.size() / 3), inPerStep.end());
}

// Per-step figures of one method at one size.
struct Series
{
    std::vector<double> collisionMs, stepMs, contacts;

    void Add(double inUpdateMs, double inCollisionMs, double inStepMs, btDispatcher& inDispatcher)
    {
        collisionMs.push_back(inUpdateMs + inCollisionMs);
        stepMs.push_back(inUpdateMs + inStepMs);
        std::size_t points = 0;
        for (int m = 0; m < inDispatcher.getNumManifolds(); ++m)
            points += std::size_t(inDispatcher.getManifoldByIndexInternal(m)->getNumContacts());
        contacts.push_back(double(points));
    }

    nlohmann::json Report() const
    {
        return {{"collision_ms_median", Median(AfterLanding(collisionMs))},
                {"step_ms_median", Median(AfterLanding(stepMs))},
                {"contacts_median", Median(AfterLanding(contacts))}};
    }
};

// Each field's scale: `inAmplitude` over its largest vertex displacement (0 for a field that moves nothing).
std::vector<double> FieldScales(const Model& inModel, double inAmplitude)
{
    std::vector<double> scale(inModel.ModeCount(), 0.0);
    for (std::uint32_t j = 0; j < inModel.ModeCount(); ++j)
    {
        double largest = 0.0;
        for (std::size_t i = 0; i < inModel.VertexCount(); ++i)
            largest = std::max(largest, double(inModel.BasisVector(i, j).norm()));
        scale[j] = largest > 0.0 ? inAmplitude / largest : 0.0;
    }
    return scale;
}

// The GImpact scene: the ground, the mesh of `ioMesh` (`inModel`'s rest shape, margin `inMargin`) static with its rest
// frame's origin at cBoxCentre, and the balls.
void AddGImpactScene(SampleWorld& ioWorld, GImpactMesh& ioMesh, const Model& inModel, btScalar inMargin,
                     std::uint32_t inBalls)
{
    ioMesh.Shape().setMargin(inMargin);
    ioMesh.Update(inModel.Positions());
    ioWorld.AddGroundPlane();
    auto* dispatcher = static_cast<btCollisionDispatcher*>(ioWorld.Dynamics().getDispatcher());
    if (std::size_t(dispatcher->getCollisionConfiguration()->getCollisionAlgorithmPool()->getElementSize()) <
        sizeof(btGImpactCollisionAlgorithm))
        throw Error("scaling: the collision-algorithm pool is too small for GImpact's algorithm");
    btGImpactCollisionAlgorithm::registerAlgorithm(dispatcher);
    ioWorld.AddStatic(ioMesh.ReleaseShape(), btTransform(btQuaternion::getIdentity(), ToBtVector(cBoxCentre)));
    AddBalls(ioWorld, BallCentres(inBalls, 1.0));
}

// The rigid floor scene: the ground, a static btBoxShape of the mesh's rest extents where the mesh's rest bounds
// are (the rest frame's origin at cBoxCentre, unrotated), and the balls. Returns the rest bounds' high corner.
Vec3d AddRigidFloorScene(SampleWorld& ioWorld, const Model& inModel, std::uint32_t inBalls)
{
    Vec3d low = Vec3d::Constant(std::numeric_limits<double>::infinity()), high = -low;
    for (const Vec3f& position : inModel.Positions())
    {
        low = low.cwiseMin(position.cast<double>());
        high = high.cwiseMax(position.cast<double>());
    }
    ioWorld.AddGroundPlane();
    ioWorld.AddStatic(std::make_unique<btBoxShape>(ToBtVector(0.5 * (high - low))),
                      btTransform(btQuaternion::getIdentity(), ToBtVector(cBoxCentre + 0.5 * (low + high))));
    AddBalls(ioWorld, BallCentres(inBalls, 1.0));
    return high;
}

nlohmann::json RunSize(const ScalingOptions& inOptions, std::uint32_t inTriangles)
{
    auto start = Clock::now();
    ShapeMesh mesh = MakeShape(EShape::Box, inTriangles);
    const auto tree = std::make_shared<const BDTree>(BDTree::Build(
        MakeSmoothModel(std::move(mesh.positions), std::move(mesh.triangles), inOptions.modes)));
    const auto asset = DeformableAsset::Create(tree);
    asset->Proxies(inOptions.level);
    const double buildMs = MsSince(start);
    const Model& model = tree->GetModel();

    const std::vector<double> scale = FieldScales(model, inOptions.amplitude);

    // The BD-Tree scene: a static deformable body whose rest frame's origin is at cBoxCentre.
    SampleWorld bdWorld;
    bdWorld.AddGroundPlane();
    BodySettings desc;
    desc.mass = 0.0;
    desc.proxyLevel = inOptions.level;
    desc.transform.setOrigin(ToBtVector(cBoxCentre));
    btRigidBody* boxBody = bdWorld.Deformables().CreateBody(asset, desc);
    DeformableShape& shape = *World::Shape(boxBody);
    // Each ball starts 1 cm above what it would touch first: the face for GImpact and the rigid box, the
    // proxies over the face for the BD-Tree (from the face's height it would start up to 4 cm inside them).
    AddBalls(bdWorld,
             AboveProxies(BallCentres(inOptions.balls, 1.0), *asset, inOptions.level, boxBody->getWorldTransform()));

    // The GImpact scene: the same rest-frame mesh at the same place, the same balls. (The mesh outlives the
    // world, which owns its shape.)
    GImpactMesh gimpact(model);
    SampleWorld gWorld;
    AddGImpactScene(gWorld, gimpact, model, shape.getMargin(), inOptions.balls);
    // The rigid floor: nothing deforms, its collision cost is what Bullet pays for the scene without the plugin.
    SampleWorld rigidWorld;
    const Vec3d high = AddRigidFloorScene(rigidWorld, model, inOptions.balls);

    Series bd, gi, rigid;
    std::vector<float> q;
    // The q the BD-Tree's body held at each step of a block.
    std::vector<std::vector<float>> held(cBlockSteps);
    std::vector<Vec3f> deformed(model.VertexCount());
    TakeTurns(
        inOptions.steps,
        [&](int inStep, std::size_t inInBlock)
        {
            // BD-Tree: q in, nothing else; the spheres follow lazily in the narrowphase.
            PrescribedQ(scale, inStep * cTimeStep, q);
            start = Clock::now();
            if (!shape.SetQ(q))
                throw Error("scaling: the prescribed q was refused");
            const double updateMs = MsSince(start);
            held[inInBlock].assign(shape.State().Q().begin(), shape.State().Q().end());
            start = Clock::now();
            bdWorld.Step(1, cTimeStep);
            bd.Add(updateMs, bdWorld.Deformables().Stats().collisionMs, MsSince(start),
                   *bdWorld.Dynamics().getDispatcher());
        },
        [&](int, std::size_t inInBlock)
        {
            // GImpact: every vertex deformed with the q the BD-Tree's body held at this step (its strain
            // limit may have clamped the prescribed one), and the tree refitted.
            start = Clock::now();
            DeformVertices(model, held[inInBlock], deformed);
            gimpact.Update(deformed);
            const double updateMs = MsSince(start);
            start = Clock::now();
            gWorld.Step(1, cTimeStep);
            gi.Add(updateMs, gWorld.Deformables().Stats().collisionMs, MsSince(start),
                   *gWorld.Dynamics().getDispatcher());
        },
        [&](int, std::size_t)
        {
            start = Clock::now();
            rigidWorld.Step(1, cTimeStep);
            rigid.Add(0.0, rigidWorld.Deformables().Stats().collisionMs, MsSince(start),
                      *rigidWorld.Dynamics().getDispatcher());
        });
    // The balls still on the top face at the end, each scene (the rest frame's top at cBoxCentre + high).
    const double top = cBoxCentre.y() + high.y();
    const int balls = int(inOptions.balls * inOptions.balls);
    const int bdOnTop = BallsAbove(bdWorld.Dynamics(), top), giOnTop = BallsAbove(gWorld.Dynamics(), top),
              boxOnTop = BallsAbove(rigidWorld.Dynamics(), top);
    nlohmann::json report = {{"triangles", model.TriangleCount()},
                             {"vertices", model.VertexCount()},
                             {"nodes", tree->NodeCount()},
                             {"build_ms", buildMs},
                             {"bdtree", bd.Report()},
                             {"gimpact", gi.Report()},
                             {"rigid_box", rigid.Report()}};
    report["bdtree"]["balls_on_top"] = bdOnTop;
    report["gimpact"]["balls_on_top"] = giOnTop;
    report["rigid_box"]["balls_on_top"] = boxOnTop;
    const double bdMs = report["bdtree"]["collision_ms_median"],
                 giMs = report["gimpact"]["collision_ms_median"],
                 boxMs = report["rigid_box"]["collision_ms_median"];
    std::printf("%10zu %9.0f %12.4f %12.4f %9.0f %12.4f %12.4f %9.0f %10.1f %12.4f %9.2f %5d/%d/%d\n",
                model.TriangleCount(), buildMs, bdMs, double(report["bdtree"]["step_ms_median"]),
                double(report["bdtree"]["contacts_median"]), giMs,
                double(report["gimpact"]["step_ms_median"]), double(report["gimpact"]["contacts_median"]),
                giMs / bdMs, boxMs, bdMs / boxMs, bdOnTop, giOnTop, boxOnTop);
    WarnIfBallsLost(balls,
                    {{"the BD-Tree body", bdOnTop}, {"GImpact's", giOnTop}, {"the rigid box", boxOnTop}});
    std::fflush(stdout);
    return report;
}

// Both engines simulating the same deformable box (dynamic, its own modes) standing on a ground box with the
// balls on its top: this plugin's body against Bullet's btReducedDeformableBody, from the same files (modes,
// masses, tetrahedra; the tetrahedra's boundary is the collision surface of both).
nlohmann::json RunReduced(const ScalingOptions& inOptions, std::uint32_t inTriangles)
{
    constexpr double cAlpha = 0.0, cBeta = 0.01;
    auto start = Clock::now();
    // A lattice of n³ cells has 12n² boundary triangles.
    const auto cells = std::uint32_t(std::max(1.0, std::round(std::sqrt(double(inTriangles) / 12.0))));
    const ShapeMesh box = MakeShape(EShape::Box, 12);
    ModalBakeSettings bake;
    bake.modes = inOptions.modes;
    bake.resolution = cells;
    const BulletReducedFiles files =
        MakeBulletFiles(ComputeLatticeModes(box.positions, box.triangles, bake), 1.0);
    const std::filesystem::path folder =
        std::filesystem::temp_directory_path() /
        ("bdt-bench-reduced-" + std::to_string(getpid()) + "-" + std::to_string(cells));
    std::filesystem::create_directories(folder);
    struct RemoveFolder // also when something below throws
    {
        const std::filesystem::path& path;
        ~RemoveFolder()
        {
            std::error_code ignored;
            std::filesystem::remove_all(path, ignored);
        }
    } removeFolder{folder};
    SaveBulletReducedFiles(files, folder.string());
    const auto tree = std::make_shared<const BDTree>(
        BDTree::Build(MakeModelFromBulletFiles(files, inOptions.modes, cAlpha, cBeta)));
    const auto asset = DeformableAsset::Create(tree);
    const std::uint32_t level = std::min(inOptions.level, tree->LevelCount() - 1);
    asset->Proxies(level);
    const double bakeMs = MsSince(start);
    const Model& model = tree->GetModel();
    double lowest = 1e300, highest = -1e300, mass = 0.0;
    for (const Vec3f& p : model.Positions())
    {
        lowest = std::min(lowest, double(p.y()));
        highest = std::max(highest, double(p.y()));
    }
    for (const double m : files.nodeMass)
        mass += m;
    const double lift = 0.002 - lowest; // the body starts 2 mm above the ground
    const double top = highest + lift;

    // This plugin: a dynamic body of the same mass on a ground box, placed as Bullet's (rest + lift).
    SampleWorld bdWorld;
    bdWorld.AddStatic(std::make_unique<btBoxShape>(btVector3(5, 0.5f, 5)),
                      btTransform(btQuaternion::getIdentity(), btVector3(0, -0.5f, 0)));
    BodySettings desc;
    desc.mass = mass;
    desc.proxyLevel = level;
    desc.transform.setOrigin(btVector3(0, btScalar(lift), 0));
    btRigidBody* body = bdWorld.Deformables().CreateBody(asset, desc);
    // The balls 1 cm above the top face for Bullet, 1 cm above the proxy spheres over it for the BD-Tree (as
    // in `RunSize`).
    const std::vector<Vec3d> balls = BallCentres(inOptions.balls, top);
    AddBalls(bdWorld, AboveProxies(balls, *asset, level, body->getWorldTransform()));
    BulletReducedScene bullet(folder.string(), int(inOptions.modes), lift, cAlpha, cBeta, balls, cBallRadius);

    Series bd;
    std::vector<double> bulletStepMs, bulletContacts;
    TakeTurns(
        inOptions.steps,
        [&](int, std::size_t)
        {
            start = Clock::now();
            bdWorld.Step(1, cTimeStep);
            bd.Add(0.0, bdWorld.Deformables().Stats().collisionMs, MsSince(start),
                   *bdWorld.Dynamics().getDispatcher());
        },
        [&](int, std::size_t)
        {
            start = Clock::now();
            bullet.Step(cTimeStep);
            bulletStepMs.push_back(MsSince(start));
            bulletContacts.push_back(double(bullet.ContactPoints()));
        });
    const double bulletMs = Median(AfterLanding(bulletStepMs));
    // The balls still on each body at the end: above its rest mid-height (both bodies move and sag a little;
    // a ball that rolled off lies on the ground).
    const double midHeight = 0.5 * (top + lowest + lift);
    const int bdOnTop = BallsAbove(bdWorld.Dynamics(), midHeight),
              bulletOnTop = BallsAbove(bullet.World(), midHeight);
    nlohmann::json report = {
        {"triangles", model.TriangleCount()},
        {"lattice_cells_per_side", cells},
        {"tet_nodes", files.mesh.positions.size()},
        {"tets", files.mesh.tets.size()},
        {"bake_ms", bakeMs},
        {"mass_kg", mass},
        {"bdtree", bd.Report()},
        {"bullet_reduced",
         {{"step_ms_median", bulletMs}, {"contacts_median", Median(AfterLanding(bulletContacts))}}},
        {"bdtree_final_height_m", double(body->getWorldTransform().getOrigin().y())},
        {"bullet_lowest_node_m", bullet.LowestNodeY()}};
    report["bdtree"]["balls_on_top"] = bdOnTop;
    report["bullet_reduced"]["balls_on_top"] = bulletOnTop;
    const double bdStep = report["bdtree"]["step_ms_median"];
    report["bullet_over_bdtree_step"] = bulletMs / bdStep;
    std::printf("%10zu %7u %9zu %10.0f %12.4f %12.4f %9.0f %14.3f %9.0f %10.1f %5d/%d\n",
                model.TriangleCount(), cells, files.mesh.tets.size(), bakeMs,
                double(report["bdtree"]["collision_ms_median"]), bdStep,
                double(report["bdtree"]["contacts_median"]), bulletMs,
                double(report["bullet_reduced"]["contacts_median"]), bulletMs / bdStep, bdOnTop, bulletOnTop);
    WarnIfBallsLost(int(inOptions.balls * inOptions.balls),
                    {{"the BD-Tree body", bdOnTop}, {"Bullet's", bulletOnTop}});
    std::fflush(stdout);
    return report;
}

int RunScaling(const ScalingOptions& inOptions)
{
    std::printf(
        "scaling: a unit box with M = %u smooth fields vibrating (%.1f mm), %u x %u balls on top, proxy "
        "level %u, %d steps of 1/60 s; medians over the last two thirds; collision = the step's update "
        "(SetQ, or deform + updateBound) + Bullet's collision detection; box = a rigid btBoxShape of the "
        "same extents under the same balls (nothing deforms)\n",
        inOptions.modes, 1e3 * inOptions.amplitude, inOptions.balls, inOptions.balls, inOptions.level,
        inOptions.steps);
    std::printf("%10s %9s %12s %12s %9s %12s %12s %9s %10s %12s %9s %s\n", "triangles", "build ms",
                "BD coll ms", "BD step ms", "BD pts", "GI coll ms", "GI step ms", "GI pts", "GI / BD",
                "box coll ms", "BD / box", "on top BD/GI/box");
    std::vector<nlohmann::json> sizes;
    for (const std::uint32_t triangles : inOptions.triangles)
        sizes.push_back(RunSize(inOptions, triangles));
    nlohmann::json report = {{"scenario", "scaling"},
                             {"modes", inOptions.modes},
                             {"level", inOptions.level},
                             {"steps", inOptions.steps},
                             {"sizes", sizes}};
    if (sizes.size() > 1)
    {
        const double first = sizes.front()["bdtree"]["collision_ms_median"];
        for (const nlohmann::json& size : sizes)
        {
            const double ratio = double(size["bdtree"]["collision_ms_median"]) / first;
            std::printf("BD-Tree collision at %llu triangles / at %llu: %.2f\n",
                        static_cast<unsigned long long>(size["triangles"].get<std::size_t>()),
                        static_cast<unsigned long long>(sizes.front()["triangles"].get<std::size_t>()),
                        ratio);
        }
    }
    if (!inOptions.reduced.empty() && inOptions.reduced.front() != 0)
    {
        std::printf(
            "against Bullet's btReducedDeformableBody (its own btDeformableMultiBodyDynamicsWorld): both "
            "simulate the same voxel-lattice box (same modes, masses and tetrahedra; their boundary is the "
            "collision surface), standing on a ground box with the balls on top; Rayleigh damping beta "
            "0.01; step = the whole step\n");
        std::printf("%10s %7s %9s %10s %12s %12s %9s %14s %9s %10s %s\n", "triangles", "cells", "tets",
                    "bake ms", "BD coll ms", "BD step ms", "BD pts", "Bullet step ms", "Bt pts", "Bt / BD",
                    "on top BD/Bt");
        std::vector<nlohmann::json> reduced;
        for (const std::uint32_t triangles : inOptions.reduced)
            reduced.push_back(RunReduced(inOptions, triangles));
        report["bullet_reduced"] = reduced;
    }
    std::vector<std::vector<double>> rows;
    for (const nlohmann::json& size : sizes)
        rows.push_back({double(size["triangles"].get<std::size_t>()), double(size["bdtree"]["collision_ms_median"]),
                        double(size["gimpact"]["collision_ms_median"]),
                        double(size["rigid_box"]["collision_ms_median"]), double(size["bdtree"]["balls_on_top"]),
                        double(size["gimpact"]["balls_on_top"]), double(size["rigid_box"]["balls_on_top"]),
                        double(inOptions.balls * inOptions.balls)});
    if (!inOptions.series.empty() &&
        !WriteTable(inOptions.series,
                    "triangles, collision ms per step (median): BD-Tree, Bullet GImpact, rigid box; balls on top "
                    "at the end: BD-Tree, GImpact, rigid box; balls",
                    rows))
        return 1;
    if (!inOptions.json.empty() && !WriteReport(report, inOptions.json))
        return 1;
    return 0;
}

const bool sRegistered = RegisterScenario(
    "scaling", "collision cost per step against mesh size: BD-Tree vs Bullet GImpact refit, same modes",
    [](CLI::App& ioCommand) -> ScenarioRun
    {
        auto options = std::make_shared<ScalingOptions>();
        AddJsonOption(ioCommand, options->json);
        AddRangeOption(ioCommand, "--triangles", options->triangles,
                       "Triangle counts (default 1000 10000 100000)", 12u, 20000000u);
        AddRangeOption(ioCommand, "--modes", options->modes, "Smooth fields M", 1u, 200u);
        AddRangeOption(ioCommand, "--level", options->level, "Contact proxy level L", 0u, 60u);
        AddRangeOption(ioCommand, "--balls", options->balls, "Balls per side of the grid on top", 1u, 100u);
        AddRangeOption(ioCommand, "--steps", options->steps, "Steps per size", 3, 1000000);
        AddRangeOption(ioCommand, "--amplitude", options->amplitude,
                       "Largest vertex displacement per field, m", 0.0, 1.0);
        AddRangeOption(
            ioCommand, "--reduced", options->reduced,
            "Triangle counts of the comparison with Bullet's btReducedDeformableBody (default 1000; "
            "10000 takes about a minute to bake and 4 s a Bullet step; 0 skips it)",
            0u, 200000u);
        ioCommand.add_option("--series", options->series,
                             "Write collision ms against triangles to this file (a table for gnuplot)");
        return [options] { return RunScaling(*options); };
    });

} // namespace
} // namespace bdt::bench
