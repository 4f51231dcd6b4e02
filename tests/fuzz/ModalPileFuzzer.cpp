// Fuzz target of the runtime under hostile settings and throws (`./dev fuzz pile`, and the replay test
// `fuzz.pile_replay`): a small pile of modal chairs (FEM vibration modes, the kind whose large deformation once
// made the surface model erase in front of its contact list) dropped in waves with a plain Bullet box among
// them, stepped from the input's settings: the modes' stiffness, damping and strain limit, the contact model,
// proxy level, region depth, piece tolerance and margin, the time step, and throws and impulses at surface
// points. Any float may come (NaN, infinities, huge): the library refuses what it cannot take with a one-line
// error and keeps stepping. Invariants: no crash or sanitizer report, and every body's transform, velocity, q
// and q̇ finite afterwards (a NaN never reaches the box).

#include "FuzzSupport.h"

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <bdt/adapter/World.h>
#include <bdt/bake/ModalBasis.h>
#include <bdt/core/bounds/BDTree.h>
#include <bdt/core/base/Error.h>
#include <bdt/core/model/ProceduralShapes.h>
#include <bdt/samples/PileWaves.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <span>

namespace
{

using bdt::fuzz::ByteSource;
using bdt::fuzz::Require;

// A coarse modal chair (6 FEM modes of a 1 MPa solid, the bake's coarsest lattice), baked once per process.
std::shared_ptr<const bdt::DeformableAsset> Chair()
{
    static const std::shared_ptr<const bdt::DeformableAsset> asset = []
    {
        bdt::ShapeMesh mesh = bdt::MakeShape(bdt::EShape::Chair, 800);
        bdt::ModalBakeSettings bake;
        bake.modes = 6;
        bake.resolution = bdt::ModalBakeSettings::cMinResolution;
        bake.factorisation = bdt::EFactorisation::Reproducible;
        return bdt::DeformableAsset::Create(std::make_shared<const bdt::BDTree>(bdt::BDTree::Build(
            bdt::MakeModalModel(std::move(mesh.positions), std::move(mesh.triangles), bake))));
    }();
    return asset;
}

// A value in [inLow, inHigh] (log-spaced when inLow > 0) for most inputs, and one input in eight any float at
// all: the fuzzer reaches both the physics of odd but valid settings and the refusal of invalid ones.
float Setting(ByteSource& ioSource, float inLow, float inHigh)
{
    const std::uint32_t bits = ioSource.U32();
    if ((bits & 7u) == 0)
        return ioSource.Float();
    const double t = double(bits >> 3) / double(0x1FFFFFFFu);
    if (inLow > 0.0f)
        return float(double(inLow) * std::pow(double(inHigh) / double(inLow), t));
    return float(double(inLow) + t * double(inHigh - inLow));
}

btVector3 Vector(ByteSource& ioSource, float inRange)
{
    const float x = Setting(ioSource, -inRange, inRange);
    const float y = Setting(ioSource, -inRange, inRange);
    const float z = Setting(ioSource, -inRange, inRange);
    return btVector3(x, y, z);
}

bool Finite(const btVector3& inVector)
{
    return std::isfinite(inVector.x()) && std::isfinite(inVector.y()) && std::isfinite(inVector.z());
}

// Applies what the input asks of every deformable body's settings; a refusal is a one-line error and changes
// nothing.
void Configure(bdt::SampleWorld& ioWorld, ByteSource& ioSource)
{
    const std::uint32_t pick = ioSource.U32();
    bdt::DeformableShapeSettings asked;
    asked.modal.stiffnessScale = Setting(ioSource, 1e-3f, 1e2f);
    asked.modal.dampingScale = Setting(ioSource, 0.0f, 10.0f);
    asked.modal.strainLimit = Setting(ioSource, 1e-3f, 2.0f);
    asked.contactModel = (pick & 1u) != 0 ? bdt::EContactModel::Surface : bdt::EContactModel::Proxies;
    asked.proxyLevel = (pick >> 1) % 16;
    asked.regionDepth = (pick >> 5) % 5;
    asked.pieceTolerance = double(Setting(ioSource, 0.0f, 0.02f));
    asked.traversalBudget = (pick >> 8) % 4 == 0 ? (pick >> 10) % 200 : 0;
    const float margin = Setting(ioSource, 0.0f, 0.05f);
    for (btRigidBody* body : ioWorld.Deformables().Bodies())
    {
        bdt::DeformableShape& shape = *bdt::World::Shape(body);
        try
        {
            bdt::DeformableShapeSettings settings = shape.Settings();
            settings.modal = asked.modal;
            settings.contactModel = asked.contactModel;
            settings.proxyLevel = asked.proxyLevel; // past the tree's levels: refused
            settings.regionDepth = asked.regionDepth;
            settings.pieceTolerance = asked.pieceTolerance;
            settings.traversalBudget = asked.traversalBudget;
            shape.SetSettings(settings);
        }
        catch (const bdt::Error& error)
        {
            bdt::fuzz::CheckOneLine(error.what());
        }
        try
        {
            shape.setMargin(margin);
        }
        catch (const bdt::Error& error)
        {
            bdt::fuzz::CheckOneLine(error.what());
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* inData, std::size_t inSize)
{
    ByteSource source(std::span<const std::uint8_t>(inData, inSize));
    bdt::SampleWorld world;
    world.AddGroundPlane();
    bdt::PileWavesSettings waves;
    waves.pile.count = 2 + source.U32() % 3;
    waves.pile.layers = 2;
    waves.pile.spacing = 0.7; // neighbours' spheres overlap from the start
    waves.pile.dropHeight = 0.3;
    waves.pile.seed = source.U32();
    waves.pile.body.mass = 4.0;
    waves.pile.body.contactModel = bdt::EContactModel::Surface;
    waves.interval = 0.1;
    bdt::PileWaves pile(Chair(), waves);
    btRigidBody* box = world.AddRigid(std::make_unique<btBoxShape>(btVector3(0.15f, 0.15f, 0.15f)),
                                      btTransform(btQuaternion::getIdentity(), btVector3(0.0f, 0.2f, 0.0f)), 2.0);

    const float timeStep = Setting(source, 1.0f / 240.0f, 1.0f / 30.0f);
    const double step = std::isfinite(timeStep) && timeStep >= 1.0f / 240.0f && timeStep <= 1.0f / 30.0f
                            ? double(timeStep)
                            : 1.0 / 60.0; // the host's step is the host's to choose: kept sane here
    const int steps = 20 + int(source.U32() % 25);
    for (int k = 0; k < steps; ++k)
    {
        if (!pile.Spawn(world, double(k) * step).empty() || k == 0)
            Configure(world, source);
        const std::uint32_t action = source.U32();
        const std::span<btRigidBody* const> bodies = world.Deformables().Bodies();
        if ((action & 3u) == 0 && !bodies.empty())
        {
            // A throw, or a blow at a point near the body (an impulse or a force, on the frame and the modes).
            btRigidBody* body = bodies[(action >> 2) % bodies.size()];
            const btVector3 velocity = Vector(source, 40.0f);
            const btVector3 point = body->getCenterOfMassPosition() + Vector(source, 0.5f);
            const btVector3 load = Vector(source, 200.0f);
            switch ((action >> 8) % 3)
            {
            case 0:
                // Bullet's own call, not the plugin's: a host keeps it sane (Bullet integrates 1e30 m/s into inf
                // for a plain rigid body too).
                if (Finite(velocity) && velocity.length() <= 1000.0f)
                    body->setLinearVelocity(velocity);
                break;
            case 1:
                (void)world.Deformables().ApplyImpulse(body, point, load);
                break;
            default:
                (void)world.Deformables().ApplyForce(body, point, load);
                break;
            }
            body->activate(true);
        }
        world.Step(1, step);
    }

    for (btRigidBody* body : world.Deformables().Bodies())
    {
        Require(Finite(body->getWorldTransform().getOrigin()) && Finite(body->getLinearVelocity()) &&
                    Finite(body->getAngularVelocity()),
                "a deformable body's transform or velocity is not finite");
        const bdt::ModalDynamics& modes = bdt::World::Shape(body)->Dynamics();
        Require(std::ranges::all_of(modes.Q(), [](float inQ) { return std::isfinite(inQ); }) &&
                    std::ranges::all_of(modes.QDot(), [](double inQDot) { return std::isfinite(inQDot); }),
                "a deformable body's q or q̇ is not finite");
    }
    Require(Finite(box->getWorldTransform().getOrigin()) && Finite(box->getLinearVelocity()),
            "the plain Bullet box's transform or velocity is not finite");
    return 0;
}
