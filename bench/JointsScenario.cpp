// `bdt-bench joints`: what Bullet's joints and raycast vehicles cost once they bend the deformables they hold
// (issue 55), side by side in one run. K modal slabs hang by one corner each, held by Bullet's ball joint (which
// the World solves with the modes), by `World::Attach`, or by the ball joint with the World rigid (Bullet's own
// joint, q = 0: the floor); optionally beside plain constraints between rigid boxes, which the World scans each
// step but does not solve. Then cars parked on plank bridges, their wheels watched (`World::WatchVehicle`) or not.
// Medians of the per-step wall time; "us/joint" and "us/wheel" are the step's growth over the rigid or unwatched
// run, per joint or wheel.
#include "Scenario.h"

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletDynamics/ConstraintSolver/btPoint2PointConstraint.h>
#include <bdt/bake/ModalBasis.h>
#include <bdt/core/bounds/BDTree.h>
#include <bdt/core/model/ProceduralShapes.h>
#include <bdt/samples/Scenes.h>

#include <chrono>
#include <cstdio>
#include <memory>

namespace bdt::bench
{
namespace
{

struct JointsOptions
{
    std::string json;
    std::vector<std::uint32_t> counts = {4, 16, 64}; // slabs, each on one joint
    std::vector<std::uint32_t> plain = {0, 1000};    // rigid-rigid constraints beside them
    std::vector<std::uint32_t> cars = {1, 4, 16};
    int steps = 120;
    std::uint32_t triangles = 1000;
    std::uint32_t modes = 8;
};

using Clock = std::chrono::steady_clock;

enum class EHold
{
    Ball,      // Bullet's btPoint2PointConstraint, solved with the modes
    Attach,    // World::Attach
    RigidBall, // the ball joint, the World rigid: Bullet's own solve, no modes
};

std::shared_ptr<const DeformableAsset> Modal(ShapeMesh inMesh, std::uint32_t inModes, double inYoung, double inDensity)
{
    ModalBakeSettings bake;
    bake.modes = inModes;
    bake.material = {inYoung, 0.4, inDensity};
    bake.factorisation = EFactorisation::Reproducible;
    return DeformableAsset::Create(std::make_shared<const BDTree>(
        BDTree::Build(MakeModalModel(std::move(inMesh.positions), std::move(inMesh.triangles), bake))));
}

/// Medians over steps (ms): the whole step, and the World's own pre- and post-tick (where it finds the joints and
/// wheels, moves their frames and gives their impulses to the modes; their solve is in Bullet's).
struct StepMs
{
    double step = 0.0, plugin = 0.0;
};

/// `StepMs` over `inSteps` steps, after a tenth as many unmeasured.
StepMs MedianStepMs(SampleWorld& ioWorld, int inSteps)
{
    ioWorld.Step(std::max(1, inSteps / 10));
    std::vector<double> step, plugin;
    step.reserve(std::size_t(inSteps));
    plugin.reserve(std::size_t(inSteps));
    for (int i = 0; i < inSteps; ++i)
    {
        const Clock::time_point start = Clock::now();
        ioWorld.Step(1);
        step.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
        const StepStats& stats = ioWorld.Deformables().Stats();
        plugin.push_back(stats.preTickMs + stats.postSolveMs);
    }
    return {Median(step), Median(plugin)};
}

/// `inCount` 1 × 0.1 × 1 m slabs of `inAsset` (10 kg) on a grid 2.5 m apart, each held by its corner (+x, +z)
/// as `inHold` says, beside `inPlain` ball joints between pairs of 1 kg boxes.
StepMs HungSlabsStepMs(const std::shared_ptr<const DeformableAsset>& inAsset, std::uint32_t inCount,
                       std::uint32_t inPlain, EHold inHold, int inSteps)
{
    SampleWorld world;
    World& deformables = world.Deformables();
    for (std::uint32_t i = 0; i < inCount; ++i)
    {
        BodySettings desc;
        desc.mass = 10.0;
        desc.transform.setOrigin(btVector3(2.5f * float(i % 8), 3.0f, 2.5f * float(i / 8)));
        btRigidBody* slab = deformables.CreateBody(inAsset, desc);
        const btVector3 corner = desc.transform * btVector3(0.5f, 0.05f, 0.5f);
        if (inHold == EHold::Attach)
        {
            const SurfacePoint point = deformables.ClosestSurfacePoint(slab, corner);
            deformables.Attach(slab, point, nullptr, deformables.SurfacePosition(slab, point));
        }
        else
            world.AddConstraint(
                std::make_unique<btPoint2PointConstraint>(*slab, slab->getWorldTransform().inverse() * corner));
    }
    // The plain pairs: far below the slabs, 1 m apart, falling freely together (no ground, no contacts).
    for (std::uint32_t i = 0; i < inPlain; ++i)
    {
        const btVector3 at(1.5f * float(i % 32), -50.0f, 1.5f * float(i / 32));
        btRigidBody* a = world.AddRigid(std::make_unique<btBoxShape>(btVector3(0.1f, 0.1f, 0.1f)),
                                        btTransform(btQuaternion::getIdentity(), at), 1.0);
        btRigidBody* b = world.AddRigid(std::make_unique<btBoxShape>(btVector3(0.1f, 0.1f, 0.1f)),
                                        btTransform(btQuaternion::getIdentity(), at + btVector3(0.5f, 0, 0)), 1.0);
        world.AddConstraint(std::make_unique<btPoint2PointConstraint>(*a, *b, btVector3(0.25f, 0, 0),
                                                                      btVector3(-0.25f, 0, 0)));
    }
    deformables.SetRigid(inHold == EHold::RigidBall);
    return MedianStepMs(world, inSteps);
}

/// `inCars` plank bridges 3 m apart, each with the bridge scene's car (`AddBridgeCar`) parked in its middle; its
/// wheels watched or not.
StepMs ParkedCarsStepMs(const std::shared_ptr<const DeformableAsset>& inPlank, std::uint32_t inCars, bool inWatched,
                        int inSteps)
{
    SampleWorld world;
    World& deformables = world.Deformables();
    for (std::uint32_t i = 0; i < inCars; ++i)
    {
        const btVector3 at(0.0f, 1.0f, 3.0f * float(i));
        BodySettings desc;
        desc.mass = 60.0;
        desc.transform.setOrigin(at);
        btRigidBody* plank = deformables.CreateBody(inPlank, desc);
        plank->setActivationState(DISABLE_DEACTIVATION);
        for (const float x : {-1.5f, 1.5f})
            for (const float z : {-0.5f, 0.5f})
            {
                const SurfacePoint corner = deformables.ClosestSurfacePoint(plank, at + btVector3(x, -0.05f, z));
                deformables.Attach(plank, corner, nullptr, deformables.SurfacePosition(plank, corner));
            }
        const BridgeCar car = AddBridgeCar(world, at + btVector3(0, 0.55f, 0));
        if (!inWatched)
            deformables.UnwatchVehicle(car.vehicle);
    }
    world.Step(60); // parked: the wheels on the decks
    return MedianStepMs(world, inSteps);
}

int Run(const JointsOptions& inOptions)
{
    const auto slab = Modal(MakeShape(EShape::Slab, inOptions.triangles), inOptions.modes, 2e6, 100);
    const auto plank = Modal(BridgePlankMesh(std::max<std::uint32_t>(inOptions.triangles, 1200)), inOptions.modes,
                             3e8, 200);
    std::printf("joints: slabs hung by one corner, %u triangles, %u modes; median ms a step over %d steps\n",
                inOptions.triangles, inOptions.modes, inOptions.steps);
    std::printf("%6s %6s %10s %10s %10s %12s %10s %12s\n", "joints", "plain", "ball ms", "attach ms", "rigid ms",
                "ball/attach", "us/joint", "World ms");
    nlohmann::json joints = nlohmann::json::array();
    for (const std::uint32_t count : inOptions.counts)
        for (const std::uint32_t plain : inOptions.plain)
        {
            const StepMs ball = HungSlabsStepMs(slab, count, plain, EHold::Ball, inOptions.steps);
            const StepMs attach = HungSlabsStepMs(slab, count, plain, EHold::Attach, inOptions.steps);
            const StepMs rigid = HungSlabsStepMs(slab, count, plain, EHold::RigidBall, inOptions.steps);
            const double perJoint = 1e3 * (ball.step - rigid.step) / double(count);
            std::printf("%6u %6u %10.3f %10.3f %10.3f %12.2f %10.1f %12.3f\n", count, plain, ball.step, attach.step,
                        rigid.step, ball.step / attach.step, perJoint, ball.plugin);
            joints.push_back({{"joints", count}, {"plain", plain}, {"ball_ms", ball.step}, {"attach_ms", attach.step},
                              {"rigid_ms", rigid.step}, {"per_joint_us", perJoint}, {"ball_world_ms", ball.plugin}});
        }
    std::printf("wheels: cars parked on plank bridges (4 wheels each); median ms a step over %d steps\n",
                inOptions.steps);
    std::printf("%6s %6s %12s %12s %10s %12s\n", "cars", "wheels", "watched ms", "unwatched ms", "us/wheel",
                "World ms");
    nlohmann::json wheels = nlohmann::json::array();
    for (const std::uint32_t cars : inOptions.cars)
    {
        const StepMs watched = ParkedCarsStepMs(plank, cars, true, inOptions.steps);
        const StepMs unwatched = ParkedCarsStepMs(plank, cars, false, inOptions.steps);
        const double perWheel = 1e3 * (watched.step - unwatched.step) / double(4 * cars);
        std::printf("%6u %6u %12.3f %12.3f %10.1f %12.3f\n", cars, 4 * cars, watched.step, unwatched.step, perWheel,
                    watched.plugin);
        wheels.push_back({{"cars", cars}, {"watched_ms", watched.step}, {"unwatched_ms", unwatched.step},
                          {"per_wheel_us", perWheel}, {"watched_world_ms", watched.plugin}});
    }
    if (!inOptions.json.empty() &&
        !WriteReport({{"scenario", "joints"}, {"triangles", inOptions.triangles}, {"modes", inOptions.modes},
                      {"steps", inOptions.steps}, {"joints", joints}, {"wheels", wheels}},
                     inOptions.json))
        return 1;
    return 0;
}

const bool sRegistered = RegisterScenario(
    "joints", "cost of Bullet's joints and raycast wheels bending deformables: hung slabs by ball joint, attachment "
              "or rigid joint, beside plain constraints; parked cars with their wheels watched or not",
    [](CLI::App& ioCommand) -> ScenarioRun
    {
        auto options = std::make_shared<JointsOptions>();
        AddJsonOption(ioCommand, options->json);
        AddRangeOption(ioCommand, "--counts", options->counts, "Hung slabs (one joint each), one run per count", 1u,
                       100000u);
        AddRangeOption(ioCommand, "--plain", options->plain, "Rigid-rigid ball joints beside them, one run per count",
                       0u, 1000000u);
        AddRangeOption(ioCommand, "--cars", options->cars, "Parked cars, one run per count", 1u, 100000u);
        AddRangeOption(ioCommand, "--steps", options->steps, "Measured steps a run", 1, 1000000);
        AddRangeOption(ioCommand, "--triangles", options->triangles, "Triangles of a slab", 100u, 5000000u);
        AddRangeOption(ioCommand, "--modes", options->modes, "Modes of a slab and a plank", 1u, 200u);
        return [options] { return Run(*options); };
    });

} // namespace
} // namespace bdt::bench
