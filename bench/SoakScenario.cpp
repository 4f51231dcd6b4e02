// `bdt-bench soak`: the reliability run. A pile of N deformable chairs on a thin floor slab inside thin walls, and
// every few steps one of them picked up and thrown at high speed, at the pile or at the open floor around it
// (`--slides`: slid across the floor at 20 to 30 m/s and into it), for thousands of steps.
// Checked at every step: every transform, velocity and q finite with no guard having to restore one (no NaN ever
// arose); every centre of mass above the floor's top, and every deformed vertex at most `--sink-limit` below it
// (10 cm: the floor's thickness; no body through the floor: `WorldSettings::sweepFastBodies` and the contacts),
// with the body-steps more than 1 cm under counted; the total energy (frames' kinetic and potential, modes')
// never above the pile's initial energy plus what the throws added, by more than `--energy-tolerance`. The world's state hash (`World::StateHash`) is recorded every `--hash-every` steps; with
// several `--threads` counts (and `--repeats`), the whole run is made once per count and repeat and the hashes
// must match. Exits 1 when any check fails.
#include "Scenario.h"

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <algorithm>
#include <bdt/samples/SampleWorld.h>
#include <bdt/samples/Scenes.h>
#include <bdt/adapter/World.h>
#include <bdt/bake/SmoothBasis.h>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/bounds/BDTree.h>
#include <bdt/core/model/ProceduralShapes.h>
#include <bdt/core/queries/TreeQueries.h>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <random>

namespace bdt::bench
{
namespace
{

// m: a slab 10 cm thick, top at y = 0: a body thrown at 40 m/s crosses 67 cm a step at 60 Hz (with the sweep off,
// `--no-sweep`, thrown bodies fall through it).
constexpr double cFloorHalfThickness = 0.05;
constexpr double cWallHalfThickness = 0.05;
// m: a deformed vertex further below the floor's top than this is counted (`sunk`).
constexpr double cSinkReported = 0.01;

struct SoakOptions
{
    std::string json;
    std::uint32_t bodies = 200;
    int steps = 10000;
    std::uint32_t triangles = 3000;
    std::uint32_t modes = 10;
    std::uint32_t level = 8;
    int throwEvery = 20;     ///< Steps between throws.
    double speed = 40.0;     ///< m/s of each throw.
    int hashEvery = 100;
    std::vector<unsigned> threads = {1};
    int repeats = 1;
    double energyTolerance = 0.05; ///< Of the energy budget.
    double timeStep = 1.0 / 60.0;
    bool noSweep = false; ///< `WorldSettings::sweepFastBodies` off: what the sweep prevents.
    bool slides = false;  ///< Each throw a slide along the floor and into it (`ThrowSlide`), not from above.
    double sinkLimit = 2.0 * cFloorHalfThickness; ///< m: a vertex deeper below the floor's top fails the run.
    std::string contacts = "surface"; ///< The chairs' contact model: "surface" or "proxies".
};

/// One body's energy: frame kinetic (linear and rotational), potential above y = 0 under the world's gravity,
/// and the modes' (vibration and deflection).
double BodyEnergy(const btRigidBody& inBody, double inGravity)
{
    if (inBody.getInvMass() == 0)
        return 0.0;
    const double mass = 1.0 / double(inBody.getInvMass());
    const btVector3 v = inBody.getLinearVelocity();
    const btVector3 w = inBody.getAngularVelocity();
    const btMatrix3x3& basis = inBody.getWorldTransform().getBasis();
    const btVector3 localW = w * basis; // ωᵀR: the angular velocity in the body's principal frame
    const btVector3 inertia = inBody.getLocalInertia();
    double energy = 0.5 * mass * double(v.length2()) + mass * inGravity * double(inBody.getWorldTransform().getOrigin().y());
    for (int axis = 0; axis < 3; ++axis)
        energy += 0.5 * double(inertia[axis]) * double(localW[axis]) * double(localW[axis]);
    if (const DeformableShape* shape = World::Shape(const_cast<btRigidBody*>(&inBody)))
        energy += shape->Dynamics().Energy();
    return energy;
}

/// Lowest world y of a body's deformed vertices (p + U q, placed as the narrowphase places them).
double LowestVertex(btRigidBody& inBody)
{
    const DeformableShape& shape = *World::Shape(&inBody);
    const Model& model = shape.Asset().GetModel();
    const DeformedBody view = shape.QueryView(inBody.getWorldTransform());
    double lowest = 1e300;
    for (std::size_t v = 0; v < model.VertexCount(); ++v)
        lowest = std::min(lowest, view.pose.Apply(view.scale * model.DeformedPosition(v, shape.State().Q())).y());
    return lowest;
}

/// The lowest world y of `inBody`'s deformed surface where it is below `inBelow` (m), else `inBelow`: the tree is
/// descended only where its spheres reach below that height (`QueryTriangles`), so a body above it costs one
/// sphere test and one resting on it a few leaves.
double LowestBelow(btRigidBody& inBody, double inBelow)
{
    const DeformableShape& shape = *World::Shape(&inBody);
    constexpr double cFar = 1e30;
    const Aabb below(Vec3d(-cFar, -cFar, -cFar), Vec3d(cFar, inBelow, cFar));
    double lowest = inBelow;
    QueryStats stats;
    QueryTriangles(shape.QueryView(inBody.getWorldTransform()), below,
                   [&lowest](std::uint32_t, const Vec3d(&inVertices)[3])
                   {
                       for (const Vec3d& vertex : inVertices)
                           lowest = std::min(lowest, vertex.y());
                   },
                   stats);
    return lowest;
}

/// Lifts `ioBody` to a point on a circle above the pile's side and throws it at `inSpeed` (m/s), at the pile's
/// centre or, `inAtFloor`, at the open floor around it (the thin slab a body at that speed would cross in one step
/// without the sweep), spinning.
void ThrowFromAbove(btRigidBody& ioBody, bool inAtFloor, double inSpeed, std::mt19937& ioRandom)
{
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const double angle = 2.0 * std::numbers::pi * unit(ioRandom);
    const btVector3 from(btScalar(5.0 * std::cos(angle)), btScalar(5.0 + 2.0 * unit(ioRandom)),
                         btScalar(5.0 * std::sin(angle)));
    const double floorAngle = 2.0 * std::numbers::pi * unit(ioRandom);
    const double floorRadius = 3.5 + 2.5 * unit(ioRandom);
    const btVector3 target =
        inAtFloor ? btVector3(btScalar(floorRadius * std::cos(floorAngle)), 0, btScalar(floorRadius * std::sin(floorAngle)))
                  : btVector3(btScalar(unit(ioRandom) - 0.5), btScalar(0.5), btScalar(unit(ioRandom) - 0.5));
    btTransform transform = ioBody.getWorldTransform();
    transform.setOrigin(from);
    World::PlaceBody(ioBody, transform);
    ioBody.setLinearVelocity((target - from).normalized() * btScalar(inSpeed));
    ioBody.setAngularVelocity(btVector3(btScalar(unit(ioRandom) * 10 - 5), btScalar(unit(ioRandom) * 10 - 5),
                                        btScalar(unit(ioRandom) * 10 - 5)));
    ioBody.activate(true);
}

/// Sets `ioBody` upright (a random turn about +Y) near the walls, its lowest vertex 2 to 12 cm above the floor,
/// and slides it across the floor at 20 to 30 m/s while it descends at 1 to 4 m/s: into the pile or, `inAlong`,
/// along a chord that passes it by, to the wall. What a chair kicked across a level does to a thin floor.
void ThrowSlide(btRigidBody& ioBody, bool inAlong, std::mt19937& ioRandom)
{
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const double angle = 2.0 * std::numbers::pi * unit(ioRandom);
    const double radius = 6.5; // the walls stand at 8 m
    const btVector3 from(btScalar(radius * std::cos(angle)), 1, btScalar(radius * std::sin(angle)));
    const double towards = angle + std::numbers::pi + (inAlong ? (unit(ioRandom) < 0.5 ? -1.0 : 1.0) : 0.0);
    const btVector3 target(btScalar(radius * std::cos(towards)), 1, btScalar(radius * std::sin(towards)));
    btTransform transform(btQuaternion(btVector3(0, 1, 0), btScalar(2.0 * std::numbers::pi * unit(ioRandom))), from);
    World::PlaceBody(ioBody, transform);
    const double lift = 0.02 + 0.1 * unit(ioRandom) - LowestVertex(ioBody);
    transform.setOrigin(from + btVector3(0, btScalar(lift), 0));
    World::PlaceBody(ioBody, transform);
    const double speed = 20.0 + 10.0 * unit(ioRandom);
    const double descent = 1.0 + 3.0 * unit(ioRandom);
    ioBody.setLinearVelocity((target - from).normalized() * btScalar(speed) - btVector3(0, btScalar(descent), 0));
    ioBody.setAngularVelocity(btVector3(0, btScalar(unit(ioRandom) * 6 - 3), 0));
    ioBody.activate(true);
}

/// What one run measured.
struct SoakRun
{
    unsigned threads = 1;
    std::vector<std::uint64_t> hashes;
    std::vector<double> stepMs;
    std::uint64_t throws = 0, sweeps = 0, sweepStops = 0, nonFinite = 0, guardResets = 0, belowFloor = 0;
    std::uint64_t sunk = 0; ///< Body-steps with a deformed vertex more than `cSinkReported` below the floor's top.
    double lowestVertex = 1e300;   ///< m, over every body and step (the floor's top is at 0)
    double lowestCentre = 1e300;   ///< m, over every step
    double worstEnergyExcess = -1e300; ///< max over steps of (E − budget) / budget
    double finalEnergy = 0.0, finalBudget = 0.0;
    double maxSpeed = 0.0; ///< m/s, largest body speed seen
};

SoakRun RunSoak(const SoakOptions& inOptions, const std::shared_ptr<const DeformableAsset>& inAsset, unsigned inThreads)
{
    SampleWorldSettings settings;
    settings.narrowphaseThreads = inThreads;
    settings.deformables.sweepFastBodies = !inOptions.noSweep;
    SampleWorld world(settings);
    const double gravity = -double(settings.gravity.y());
    // A floor slab and four walls, all thin: what a fast body would go through in one step without the sweep.
    const double half = 8.0;
    world.AddStatic(std::make_unique<btBoxShape>(btVector3(btScalar(half), btScalar(cFloorHalfThickness), btScalar(half))),
                    btTransform(btQuaternion::getIdentity(), btVector3(0, btScalar(-cFloorHalfThickness), 0)));
    for (int side = 0; side < 4; ++side)
    {
        const bool alongX = side < 2;
        const double sign = side % 2 == 0 ? 1.0 : -1.0;
        const btVector3 extent = alongX ? btVector3(btScalar(cWallHalfThickness), 10, btScalar(half))
                                        : btVector3(btScalar(half), 10, btScalar(cWallHalfThickness));
        const btVector3 centre = alongX ? btVector3(btScalar(sign * half), 10, 0) : btVector3(0, 10, btScalar(sign * half));
        world.AddStatic(std::make_unique<btBoxShape>(extent), btTransform(btQuaternion::getIdentity(), centre));
    }
    PileSettings pile;
    pile.count = inOptions.bodies;
    pile.layers = std::max(1u, inOptions.bodies / 25);
    pile.spacing = 0.8;
    pile.body.mass = 4.0;
    pile.body.proxyLevel = inOptions.level;
    pile.body.contactModel = inOptions.contacts == "proxies" ? EContactModel::Proxies : EContactModel::Surface;
    const std::vector<btRigidBody*> bodies = AddPile(world, inAsset, pile);
    World& deformables = world.Deformables();

    SoakRun run;
    run.threads = inThreads;
    double budget = 0.0;
    for (const btRigidBody* body : bodies)
        budget += BodyEnergy(*body, gravity);
    std::mt19937 random(12345);
    for (int step = 1; step <= inOptions.steps; ++step)
    {
        if (step % inOptions.throwEvery == 0)
        {
            // Pick a body and throw it; its energy change is added to the budget.
            btRigidBody& body = *bodies[(std::size_t(step / inOptions.throwEvery) * 37) % bodies.size()];
            const double before = BodyEnergy(body, gravity);
            if (inOptions.slides)
                ThrowSlide(body, (step / inOptions.throwEvery) % 2 == 1, random);
            else
                ThrowFromAbove(body, (step / inOptions.throwEvery) % 2 == 1, inOptions.speed, random);
            budget += BodyEnergy(body, gravity) - before;
            ++run.throws;
        }
        const auto start = std::chrono::steady_clock::now();
        world.Step(1, inOptions.timeStep);
        run.stepMs.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        const StepStats& stats = deformables.Stats();
        run.sweeps += stats.sweeps;

        double energy = 0.0;
        for (btRigidBody* body : bodies)
        {
            bool finite = IsFinite(body->getWorldTransform()) && IsFinite(body->getLinearVelocity()) &&
                          IsFinite(body->getAngularVelocity());
            for (const double q : World::Shape(body)->Dynamics().QDouble())
                finite = finite && std::isfinite(q);
            run.nonFinite += finite ? 0 : 1;
            const double y = double(body->getWorldTransform().getOrigin().y());
            run.lowestCentre = std::min(run.lowestCentre, y);
            run.belowFloor += y < 0.0 ? 1 : 0;
            run.maxSpeed = std::max(run.maxSpeed, double(body->getLinearVelocity().length()));
            energy += BodyEnergy(*body, gravity);
            const double lowest = LowestBelow(*body, 0.0);
            run.lowestVertex = std::min(run.lowestVertex, lowest);
            run.sunk += lowest < -cSinkReported ? 1 : 0;
        }
        run.worstEnergyExcess = std::max(run.worstEnergyExcess, (energy - budget) / budget);
        run.finalEnergy = energy;
        run.finalBudget = budget;
        if (step % inOptions.hashEvery == 0)
            run.hashes.push_back(deformables.StateHash());
    }
    run.sweepStops = deformables.Stats().sweepStops;
    run.guardResets = deformables.Stats().transformResets + deformables.Stats().modalResets;
    return run;
}

int RunSoakScenario(const SoakOptions& inOptions)
{
    ShapeMesh mesh = MakeShape(EShape::Chair, inOptions.triangles);
    const Model model = MakeSmoothModel(std::move(mesh.positions), std::move(mesh.triangles), inOptions.modes);
    const auto asset = DeformableAsset::Create(std::make_shared<const BDTree>(BDTree::Build(model)));
    std::printf("soak%s: %u chairs (%zu triangles, M = %u, L = %u, %s contacts), %d steps of %.4f s, ",
                inOptions.noSweep ? " (fast bodies not swept)" : "", inOptions.bodies, model.TriangleCount(),
                inOptions.modes, inOptions.level, inOptions.contacts.c_str(), inOptions.steps, inOptions.timeStep);
    if (inOptions.slides)
        std::printf("a slide at 20-30 m/s every %d steps (into the pile and past it in turn)", inOptions.throwEvery);
    else
        std::printf("a throw at %.0f m/s every %d steps (at the pile and at the floor in turn)", inOptions.speed,
                    inOptions.throwEvery);
    std::printf(", thin floor and walls (%.0f cm)\n", 200.0 * cFloorHalfThickness);

    std::vector<SoakRun> runs;
    for (const unsigned threads : inOptions.threads)
        for (int repeat = 0; repeat < inOptions.repeats; ++repeat)
        {
            runs.push_back(RunSoak(inOptions, asset, threads));
            const SoakRun& run = runs.back();
            std::printf("run %zu (threads %u): step median %.3f ms, p99 %.3f ms, max %.3f ms; %" PRIu64
                        " throws, fastest body %.1f m/s, %" PRIu64 " sweeps, %" PRIu64 " stopped\n",
                        runs.size(), threads, Median(run.stepMs), Percentile(run.stepMs, 99.0),
                        *std::max_element(run.stepMs.begin(), run.stepMs.end()), run.throws, run.maxSpeed, run.sweeps,
                        run.sweepStops);
            std::printf("  non-finite body-steps %" PRIu64 ", guard restores %" PRIu64 ", centres below the floor %" PRIu64
                        " (lowest %.3f m), lowest vertex %.4f m (body-steps more than 1 cm under: %" PRIu64 "), energy at most "
                        "%+.2f%% of the budget (end: %.0f J of %.0f J)\n",
                        run.nonFinite, run.guardResets, run.belowFloor, run.lowestCentre, run.lowestVertex, run.sunk,
                        100.0 * run.worstEnergyExcess, run.finalEnergy, run.finalBudget);
            for (std::size_t k = 0; k < run.hashes.size(); ++k)
                if (k < 3 || k + 1 == run.hashes.size())
                    std::printf("  hash at step %zu: %016" PRIx64 "\n", (k + 1) * std::size_t(inOptions.hashEvery),
                                run.hashes[k]);
        }

    bool passed = true;
    const auto fail = [&passed](const char* inWhat)
    {
        std::printf("FAILED: %s\n", inWhat);
        passed = false;
    };
    for (const SoakRun& run : runs)
    {
        if (run.nonFinite > 0 || run.guardResets > 0)
            fail("a non-finite value arose");
        if (run.belowFloor > 0 || run.lowestVertex < -inOptions.sinkLimit)
            fail("a deformed vertex went further below the floor's top than --sink-limit");
        if (run.worstEnergyExcess > inOptions.energyTolerance)
            fail("the energy grew beyond what the throws added");
    }
    bool hashesMatch = true;
    for (const SoakRun& run : runs)
        hashesMatch = hashesMatch && run.hashes == runs.front().hashes;
    if (!hashesMatch)
        fail("the state hashes differ between runs");
    else if (runs.size() > 1)
        std::printf("the %zu state hashes match across %zu runs (threads:", runs.front().hashes.size(), runs.size());
    if (hashesMatch && runs.size() > 1)
    {
        for (const SoakRun& run : runs)
            std::printf(" %u", run.threads);
        std::printf(")\n");
    }
    std::printf("%s\n", passed ? "soak passed" : "soak FAILED");
    std::fflush(stdout);

    nlohmann::json report = {{"scenario", "soak"},
                             {"bodies", inOptions.bodies},
                             {"triangles", model.TriangleCount()},
                             {"modes", inOptions.modes},
                             {"steps", inOptions.steps},
                             {"throw_every", inOptions.throwEvery},
                             {"throw_speed", inOptions.speed},
                             {"slides", inOptions.slides},
                             {"contacts", inOptions.contacts},
                             {"passed", passed},
                             {"hashes_match", hashesMatch}};
    for (const SoakRun& run : runs)
        report["runs"].push_back({{"threads", run.threads},
                                  {"step_ms_median", Median(run.stepMs)},
                                  {"step_ms_p99", Percentile(run.stepMs, 99.0)},
                                  {"throws", run.throws},
                                  {"sweeps", run.sweeps},
                                  {"sweep_stops", run.sweepStops},
                                  {"max_speed", run.maxSpeed},
                                  {"non_finite", run.nonFinite},
                                  {"guard_restores", run.guardResets},
                                  {"centres_below_floor", run.belowFloor},
                                  {"lowest_vertex", run.lowestVertex},
                                  {"body_steps_sunk_over_1cm", run.sunk},
                                  {"worst_energy_excess", run.worstEnergyExcess},
                                  {"hashes", run.hashes}});
    if (!inOptions.json.empty() && !WriteReport(report, inOptions.json))
        return 1;
    return passed ? 0 : 1;
}

const bool sRegistered = RegisterScenario(
    "soak", "reliability: a pile with bodies thrown in at high speed for thousands of steps; finite, above the "
            "floor, bounded energy, state hashes equal across runs and thread counts",
    [](CLI::App& ioCommand) -> ScenarioRun
    {
        auto options = std::make_shared<SoakOptions>();
        AddJsonOption(ioCommand, options->json);
        AddRangeOption(ioCommand, "--bodies", options->bodies, "Chairs in the pile", 2u, 100000u);
        AddRangeOption(ioCommand, "--steps", options->steps, "Steps to run", 1, 10000000);
        AddRangeOption(ioCommand, "--triangles", options->triangles, "Chair triangle count", 100u, 5000000u);
        AddRangeOption(ioCommand, "--modes", options->modes, "Modes per chair", 0u, 200u);
        AddRangeOption(ioCommand, "--level", options->level, "Contact proxy level L", 0u, 60u);
        AddRangeOption(ioCommand, "--throw-every", options->throwEvery, "Steps between throws", 1, 1000000);
        AddRangeOption(ioCommand, "--speed", options->speed, "Speed of each throw, m/s", 0.0, 10000.0);
        AddRangeOption(ioCommand, "--hash-every", options->hashEvery, "Steps between state hashes", 1,
                       1000000);
        AddRangeOption(ioCommand, "--threads", options->threads,
                       "Narrowphase thread counts, one run each (hashes compared)", 1u, 256u);
        AddRangeOption(ioCommand, "--repeats", options->repeats, "Runs per thread count", 1, 100);
        AddRangeOption(ioCommand, "--energy-tolerance", options->energyTolerance,
                       "Largest energy excess over the budget, a fraction of it", 0.0, 100.0);
        AddRangeOption(ioCommand, "--dt", options->timeStep, "Time step, s", 1e-5, 1.0);
        ioCommand.add_option("--contacts", options->contacts, "The chairs' contact model: surface (the default) or proxies")
            ->check(CLI::IsMember({"surface", "proxies"}));
        AddRangeOption(ioCommand, "--sink-limit", options->sinkLimit,
                       "Fail when a deformed vertex is further than this below the floor's top at any step, m", 0.0,
                       1.0);
        ioCommand.add_flag("--slides", options->slides,
                           "Each throw a slide at 20 to 30 m/s along the floor and into it (1 to 4 m/s down), at "
                           "the pile and past it in turn, instead of a throw from above at --speed");
        ioCommand.add_flag("--no-sweep", options->noSweep,
                           "Fast bodies not swept (WorldSettings::sweepFastBodies off): what the sweep prevents");
        return [options] { return RunSoakScenario(*options); };
    });

} // namespace
} // namespace bdt::bench
