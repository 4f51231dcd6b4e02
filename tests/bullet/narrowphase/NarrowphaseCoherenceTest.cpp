// Temporal coherence in the narrowphase: front tracking (`DeformableShapeSettings::frontTracking`,
// `TraversalFront`) and the pair caches (`DeformableShapeSettings::pairCacheSkin`, `ProxyPairCache` and, with
// static primitives, `PrimitivePairCache`). A pair gets the same contacts, bit for bit and in the same order,
// with either as with neither, so a world steps identically every way, through drops, rest, proxy-level
// changes and the settings toggled.
#include "bullet/narrowphase/ContactGeneration.h"
#include "bullet/CollisionTestScenes.h"
#include "support/BulletScenes.h"
#include "support/QueryOracles.h"

#include "core/queries/ProxyPairCache.h"
#include "core/queries/TraversalFront.h"

#include <BulletCollision/CollisionDispatch/btCollisionObjectWrapper.h>
#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btCapsuleShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>
#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <bdt/samples/Scenes.h>
#include <bdt/adapter/World.h>
#include <bdt/bullet/Conversions.h>
#include <cmath>
#include <cstring>
#include <functional>
#include <gtest/gtest.h>
#include <iostream>
#include <string>
#include <vector>

namespace bdt
{
namespace
{

// --- GenerateContacts with and without a front ---

// Same contacts in the same order, every field exactly equal.
void ExpectSameContacts(const std::vector<PairContact>& inWithout, const std::vector<PairContact>& inWith,
                        const std::string& inContext)
{
    ASSERT_EQ(inWithout.size(), inWith.size()) << inContext;
    for (std::size_t i = 0; i < inWithout.size(); ++i)
    {
        const PairContact& x = inWithout[i];
        const PairContact& y = inWith[i];
        ASSERT_EQ(x.feature0.node, y.feature0.node) << inContext << " contact " << i;
        ASSERT_EQ(x.feature0.triangle, y.feature0.triangle) << inContext << " contact " << i;
        ASSERT_EQ(x.feature0.barycentric, y.feature0.barycentric) << inContext << " contact " << i;
        ASSERT_EQ(x.feature1.node, y.feature1.node) << inContext << " contact " << i;
        ASSERT_EQ(x.feature1.triangle, y.feature1.triangle) << inContext << " contact " << i;
        ASSERT_EQ(x.feature1.barycentric, y.feature1.barycentric) << inContext << " contact " << i;
        ASSERT_EQ(x.index1, y.index1) << inContext << " contact " << i;
        EXPECT_EQ(x.partId1, y.partId1) << inContext;
        EXPECT_EQ(x.distance, y.distance) << inContext << " contact " << i;
        EXPECT_EQ(x.pointOnB, y.pointOnB) << inContext << " contact " << i;
        EXPECT_EQ(x.normal, y.normal) << inContext << " contact " << i;
    }
}

// B comes through A (apart, touching, deep, apart again, twice) while both vibrate; A's proxy level changes
// and later changes back, and for the last steps the front is used with the roles swapped (both bodies are of
// one asset at one level, so the front's key cannot tell: any front is a complete cut of the pair's proxy
// pairs, the descent only starts in the wrong places). Each step the narrowphase with the pair's front, and
// with a pair cache, must equal the one without, contact for contact, in ascending (A's proxy, B's proxy)
// order (of their proxy pairs, for surface contacts), in both contact models.
void CheckFrontAndCache(EContactModel inModel)
{
    using namespace test::collision;
    std::mt19937 random(17);
    DeformableObject a(0.01, 3, 8, inModel);
    DeformableObject b(0.005, 3, 8, inModel);
    // The sphere descent the front and the cache serve (pieces off: with them a surface pair descends by boxes).
    for (DeformableObject* body : {&a, &b})
    {
        DeformableShapeSettings settings = body->shape->Settings();
        settings.pieceTolerance = 0.0;
        body->shape->SetSettings(settings);
    }
    const btTransform transformA = RandomTransform(random, 0.0);
    const btQuaternion spinB = RandomTransform(random, 0.0).getRotation();
    TraversalFront front;
    ProxyPairCache cache(0.05);
    constexpr int cSteps = 200;
    int stepsInContact = 0;
    std::uint64_t testsWithout = 0, testsWith = 0;
    for (int step = 0; step < cSteps; ++step)
    {
        const std::string context = std::string(inModel == EContactModel::Surface ? "surface" : "proxies") +
                                    ", step " + std::to_string(step);
        const double t = double(step) / cSteps;
        a.RandomQ(random, 0.02);
        b.RandomQ(random, 0.02);
        // Centre distance 2 (the unit boxes' bounding spheres apart) down to 0.8 (deep) and back, twice.
        const double distance = 2.0 - 1.2 * std::pow(std::sin(2.0 * M_PI * t), 2.0);
        btTransform transformB(spinB * btQuaternion(btVector3(0, 1, 0), btScalar(0.3 * t)),
                               btVector3(btScalar(distance), btScalar(0.2 * std::sin(7.0 * t)), 0));
        // Both changes fall on steps in contact, where the pair holds a front.
        if (step == 60 || step == 130)
        {
            DeformableShapeSettings settings = a.shape->Settings();
            settings.proxyLevel = step == 60 ? 4 : 5;
            a.shape->SetSettings(settings);
        }
        const bool swapped = step >= cSteps - 20;
        DeformableObject& first = swapped ? b : a;
        DeformableObject& second = swapped ? a : b;
        const btCollisionObjectWrapper wrapA(nullptr, first.shape.get(), &first.object,
                                             swapped ? transformB : transformA, -1, -1);
        const btCollisionObjectWrapper wrapB(nullptr, second.shape.get(), &second.object,
                                             swapped ? transformA : transformB, -1, -1);
        std::vector<PairContact> without, with, withCache;
        QueryStats statsWithout, statsWith, statsWithCache;
        GenerateContacts(wrapA, wrapB, 0.02, without, statsWithout);
        GenerateContacts(wrapA, wrapB, 0.02, with, statsWith, &front);
        GenerateContacts(wrapA, wrapB, 0.02, withCache, statsWithCache, nullptr, &cache);
        ExpectSameContacts(without, with, context);
        ExpectSameContacts(without, withCache, context + " (pair cache)");
        // The level changes fall on steps in contact; so does the swap of roles, where the proxies still overlap
        // though the surfaces are apart.
        if (step == 60 || step == 130 || (step == cSteps - 20 && inModel == EContactModel::Proxies))
        {
            EXPECT_FALSE(with.empty()) << context << ": the changes are meant to meet a front";
        }
        const bool strict = inModel == EContactModel::Proxies; // one contact per proxy pair
        for (std::size_t i = 1; i < with.size(); ++i)
        {
            const auto previous = std::pair(with[i - 1].feature0.node, with[i - 1].feature1.node);
            const auto current = std::pair(with[i].feature0.node, with[i].feature1.node);
            ASSERT_TRUE(strict ? previous < current : previous <= current)
                << context << ": contacts not in (A's proxy, B's proxy) order at " << i;
        }
        stepsInContact += without.empty() ? 0 : 1;
        testsWithout += statsWithout.overlapTests;
        testsWith += statsWith.overlapTests;
    }
    // The path is in contact for a good share of the steps, not all, and the front does save tests.
    EXPECT_GT(stepsInContact, cSteps / 3);
    EXPECT_LT(stepsInContact, cSteps);
    EXPECT_LT(testsWith, testsWithout);
    std::cout << "[ info ] " << stepsInContact << " steps in contact; sphere tests " << testsWith
              << " with the front, " << testsWithout << " without\n";
}

TEST(FrontTracking, GenerateContactsWithAFrontEqualsWithout)
{
    CheckFrontAndCache(EContactModel::Proxies);
    CheckFrontAndCache(EContactModel::Surface);
}

// --- Whole worlds, front on and off ---

// Appends the bytes of `inValues` to `ioBytes`.
template <class T>
void AppendBytes(std::vector<unsigned char>& ioBytes, const T* inValues, std::size_t inCount)
{
    const std::size_t at = ioBytes.size();
    ioBytes.resize(at + inCount * sizeof(T));
    std::memcpy(ioBytes.data() + at, inValues, inCount * sizeof(T));
}

// A rigid body's transform (basis rows and origin, without Bullet's unused fourth lanes) and velocities, as
// bytes.
void AppendRigidState(std::vector<unsigned char>& ioBytes, const btRigidBody& inBody)
{
    const btTransform& transform = inBody.getWorldTransform();
    for (int row = 0; row < 3; ++row)
        AppendBytes(ioBytes, &transform.getBasis()[row][0], 3);
    AppendBytes(ioBytes, &transform.getOrigin()[0], 3);
    AppendBytes(ioBytes, &inBody.getLinearVelocity()[0], 3);
    AppendBytes(ioBytes, &inBody.getAngularVelocity()[0], 3);
}

// Everything a step decides, as bytes: each body's transform (basis rows and origin, without Bullet's unused
// fourth lanes), velocities, q (double and the float the trees see) and q̇.
std::vector<unsigned char> Snapshot(World& inWorld)
{
    std::vector<unsigned char> bytes;
    for (btRigidBody* body : inWorld.Bodies())
    {
        AppendRigidState(bytes, *body);
        const ModalDynamics& dynamics = World::Shape(body)->Dynamics();
        AppendBytes(bytes, dynamics.QDouble().data(), dynamics.QDouble().size());
        AppendBytes(bytes, dynamics.Q().data(), dynamics.Q().size());
        AppendBytes(bytes, dynamics.QDot().data(), dynamics.QDot().size());
    }
    return bytes;
}

// Steps both worlds by one step of 1/60 s and adds each one's sphere tests (`StepStats::overlapTests`).
void StepBoth(SampleWorld& ioA, std::uint64_t& ioTestsA, SampleWorld& ioB, std::uint64_t& ioTestsB)
{
    ioA.Step(1, 1.0 / 60.0);
    ioB.Step(1, 1.0 / 60.0);
    ioTestsA += ioA.Deformables().Stats().overlapTests;
    ioTestsB += ioB.Deformables().Stats().overlapTests;
}

// Counts a step whose two worlds' states (bytes) differ, reporting the first three.
void CompareStates(const std::vector<unsigned char>& inA, const std::vector<unsigned char>& inB, int inStep,
                   int& ioMismatches)
{
    if (inA != inB && ++ioMismatches <= 3)
        ADD_FAILURE() << "step " << inStep << ": the worlds differ";
}

// Which temporal coherence a pile's pairs use.
enum class ECoherence
{
    None,  ///< Every proxy query descends from the roots.
    Front, ///< Front tracking.
    Cache, ///< The pair cache, at the default skin.
};

// Sets the proxy level and the coherence of one body.
void Configure(btRigidBody* inBody, std::uint32_t inLevel, ECoherence inCoherence)
{
    DeformableShape& shape = *World::Shape(inBody);
    DeformableShapeSettings settings = shape.Settings();
    settings.proxyLevel = inLevel;
    settings.frontTracking = inCoherence == ECoherence::Front;
    settings.pairCacheSkin = inCoherence == ECoherence::Cache ? DeformableShapeSettings{}.pairCacheSkin : 0.0;
    // The sphere descent the front and the cache serve: with contact pieces a surface pair descends by boxes to
    // its contact cut instead (`PieceDescent.h`).
    settings.pieceTolerance = 0.0;
    shape.SetSettings(settings);
}

// A pile of deformable chairs (4 kg, 3000 triangles, 10 modes, proxy level 8) dropped in three layers onto
// the ground: they hit the ground and each other, then settle into a pile.
struct Pile
{
    explicit Pile(ECoherence inCoherence)
    {
        world.AddGroundPlane();
        PileSettings pile;
        pile.count = 12;
        pile.layers = 3;
        pile.body.mass = 4.0;
        pile.body.proxyLevel = 8;
        bodies = AddPile(world, test::ShapeAsset("chair", 3000, 10), pile);
        for (btRigidBody* body : bodies)
            Configure(body, 8, inCoherence);
    }

    SampleWorld world;
    std::vector<btRigidBody*> bodies;
    std::uint64_t overlapTests = 0; ///< Sphere tests over the run (`StepStats::overlapTests`).
};

// Steps a pile with `inCoherence` and one without any, side by side, `inSteps` steps at 60 Hz, calling
// `inBeforeStep(step, withFront, withoutFront)` before each; after each step both must hold the same bytes.
// Returns the overlap tests of the pile with coherence over those of the one without.
double RunSideBySide(ECoherence inCoherence, int inSteps,
                     const std::function<void(int, Pile&, Pile&)>& inBeforeStep = {})
{
    Pile withFront(inCoherence);
    Pile withoutFront(ECoherence::None);
    int mismatches = 0;
    int awakeSteps = 0;
    for (int step = 0; step < inSteps; ++step)
    {
        if (inBeforeStep)
            inBeforeStep(step, withFront, withoutFront);
        StepBoth(withFront.world, withFront.overlapTests, withoutFront.world, withoutFront.overlapTests);
        CompareStates(Snapshot(withFront.world.Deformables()), Snapshot(withoutFront.world.Deformables()),
                      step, mismatches);
        bool awake = false;
        for (btRigidBody* body : withFront.bodies)
            awake = awake || body->isActive();
        awakeSteps += awake ? 1 : 0;
    }
    EXPECT_EQ(mismatches, 0) << "steps whose state differs, of " << inSteps;
    // The pile is still moving for at least half the run (it does not fall asleep early and make this
    // trivial); when it settles varies by build.
    EXPECT_GT(awakeSteps, inSteps / 2);
    EXPECT_GT(withoutFront.overlapTests, 0u);
    const double ratio = double(withFront.overlapTests) / double(withoutFront.overlapTests);
    std::cout << "[ info ] overlap tests over " << inSteps << " steps: " << withFront.overlapTests
              << " with coherence, " << withoutFront.overlapTests << " without: ratio " << ratio << "\n";
    return ratio;
}

// Drop, impacts and rest for 5 s: the same transforms, velocities and modes every step, bit for bit. (What
// the front saves is not asserted here: this pile needed 1.44x the tests with it when the coarse spheres were
// first wrapped directly, 0.80x since the descent computes children from the rows, 0.90x since the
// narrowphase searches only as far as the bodies' relative speeds reach; two resting bodies need half,
// `TraversalFront.RestingContactNeedsFewerTests`.)
TEST(FrontTracking, PileStepsIdenticallyWithAndWithoutTheFront)
{
    RunSideBySide(ECoherence::Front, 300);
}

// The schedule both toggle tests share: at steps 80, 120, 140 and 160 every body gets its proxy level (8,
// then 6 or 9 by body for steps 80 to 159, then 7), with `inCoherenceAt(step, body)` in the pile under test
// and no coherence in the reference pile. 220 steps side by side.
void RunWithLevelChanges(ECoherence inCoherence, const std::function<ECoherence(int, std::size_t)>& inCoherenceAt)
{
    const auto change = [&](int inStep, Pile& ioWith, Pile& ioWithout)
    {
        if (inStep != 80 && inStep != 120 && inStep != 140 && inStep != 160)
            return;
        for (std::size_t i = 0; i < ioWith.bodies.size(); ++i)
        {
            std::uint32_t level = 8;
            if (inStep >= 80 && inStep < 160)
                level = i % 2 == 0 ? 6 : 9;
            else if (inStep >= 160)
                level = 7;
            Configure(ioWith.bodies[i], level, inCoherenceAt(inStep, i));
            Configure(ioWithout.bodies[i], level, ECoherence::None);
        }
    };
    RunSideBySide(inCoherence, 220, change);
}

// Proxy levels changed mid-run, per body (a pair then has two different levels, which the front's key
// covers), and later back; front tracking turned off and on again on some bodies: still the same world as
// the one that never tracks fronts.
TEST(FrontTracking, ProxyLevelChangesAndTogglesKeepThePileIdentical)
{
    // Bodies 0 to 3 stop tracking fronts for steps 120 to 139, then start again.
    RunWithLevelChanges(ECoherence::Front, [](int inStep, std::size_t inBody)
                        { return inBody < 4 && inStep >= 120 && inStep < 140 ? ECoherence::None : ECoherence::Front; });
}

// --- The pair cache ---

// Drop, impacts and rest for 5 s with every pair of chairs answering from its list while it can: the same
// transforms, velocities and modes every step, bit for bit, for under 0.9 of the sphere tests. (0.52 when the
// narrowphase searched the whole contact threshold; since it searches only as far as the bodies' relative
// speeds reach, the descents it saves are shorter: 0.74 in float, 0.81 in double.)
TEST(PairCache, PileStepsIdenticallyWithAndWithoutTheCache)
{
    EXPECT_LT(RunSideBySide(ECoherence::Cache, 300), 0.9);
}

// Proxy levels changed mid-run, per body, and back; the cache turned off on some bodies and on again, and
// front tracking on others for a while (which takes precedence over the cache): still the same world as
// the one that never uses either.
TEST(PairCache, ProxyLevelChangesAndTogglesKeepThePileIdentical)
{
    // Bodies 0 to 3 without the cache and 4 and 5 with front tracking for steps 120 to 139.
    RunWithLevelChanges(ECoherence::Cache,
                        [](int inStep, std::size_t inBody)
                        {
                            if (inStep < 120 || inStep >= 140)
                                return ECoherence::Cache;
                            return inBody < 4 ? ECoherence::None : inBody < 6 ? ECoherence::Front : ECoherence::Cache;
                        });
}

// --- The primitive cache ---

// Chairs dropped onto static ground pieces of every analytic kind (a tilted box slab, a sphere, a lying
// capsule, the plane around them) and left to settle, with the skin (each chair's pairs with the static
// pieces answer from `PrimitivePairCache` lists) and without, for 6 s: the same transforms, velocities and
// modes every step, bit for bit, for fewer sphere tests.
TEST(PrimitiveCache, ChairsOnStaticPrimitivesStepIdentically)
{
    struct Scene
    {
        explicit Scene(double inSkin)
        {
            world.AddGroundPlane(-1.0);
            pieces.push_back(
                world.AddStatic(std::make_unique<btBoxShape>(btVector3(1.5f, 0.2f, 1.5f)),
                                btTransform(btQuaternion(btVector3(0, 0, 1), 0.05f), btVector3(-4, 0, 0))));
            pieces.push_back(
                world.AddStatic(std::make_unique<btSphereShape>(4.0f),
                                btTransform(btQuaternion::getIdentity(), btVector3(0, -3.8f, 0))));
            // Lying along z, its ridge at y = 0.2.
            pieces.push_back(world.AddStatic(
                std::make_unique<btCapsuleShape>(1.0f, 2.0f),
                btTransform(btQuaternion(btVector3(1, 0, 0), SIMD_HALF_PI), btVector3(4, -0.8f, 0))));
            const auto asset = test::ShapeAsset("chair", 3000, 10);
            int index = 0;
            for (const double x : {-4.0, 0.0, 4.0})
                for (const double z : {-0.7, 0.7})
                {
                    BodySettings desc;
                    desc.mass = 4.0;
                    desc.proxyLevel = 8;
                    desc.transform =
                        btTransform(btQuaternion(btVector3(0, 1, 0), btScalar(0.7 * index)),
                                    btVector3(btScalar(x), btScalar(1.2 + 0.2 * index), btScalar(z)));
                    ++index;
                    btRigidBody* body = world.Deformables().CreateBody(asset, desc);
                    DeformableShape& shape = *World::Shape(body);
                    DeformableShapeSettings settings = shape.Settings();
                    settings.pairCacheSkin = inSkin;
                    shape.SetSettings(settings);
                    bodies.push_back(body);
                }
        }
        SampleWorld world;
        std::vector<btRigidBody*> pieces; ///< The static box, sphere and capsule.
        std::vector<btRigidBody*> bodies;
        std::uint64_t overlapTests = 0;
    };
    Scene with(DeformableShapeSettings{}.pairCacheSkin);
    Scene without(0.0);
    int mismatches = 0;
    constexpr int cSteps = 360;
    for (int step = 0; step < cSteps; ++step)
    {
        StepBoth(with.world, with.overlapTests, without.world, without.overlapTests);
        CompareStates(Snapshot(with.world.Deformables()), Snapshot(without.world.Deformables()), step,
                      mismatches);
    }
    EXPECT_EQ(mismatches, 0) << "steps whose state differs, of " << cSteps;
    // Each piece holds a chair at the end (a manifold of a chair with it has points).
    btDispatcher& dispatcher = *with.world.Dynamics().getDispatcher();
    for (const btRigidBody* piece : with.pieces)
    {
        int touching = 0;
        for (int m = 0; m < dispatcher.getNumManifolds(); ++m)
        {
            const btPersistentManifold* manifold = dispatcher.getManifoldByIndexInternal(m);
            touching += (manifold->getBody0() == piece || manifold->getBody1() == piece) &&
                                manifold->getNumContacts() > 0
                            ? 1
                            : 0;
        }
        EXPECT_GT(touching, 0) << piece->getCollisionShape()->getName();
    }
    const double ratio = double(with.overlapTests) / double(without.overlapTests);
    std::cout << "[ info ] overlap tests over " << cSteps << " steps: " << with.overlapTests
              << " with the skin, " << without.overlapTests << " without: ratio " << ratio << "\n";
    EXPECT_LT(ratio, 0.9);
}

// Balls, crates and capsules (dynamic rigid bodies) dropped onto a deformable box standing on the ground and
// left to settle on it, with the skin (each pair of the box and a rigid body answers from a
// `PrimitivePairCache` list that follows the box in the rigid body's frame) and without, for 5 s: the same
// transforms, velocities and modes of every body, rigid ones included, every step, bit for bit, for fewer
// sphere tests.
TEST(PrimitiveCache, RigidBodiesOnADeformableStepIdentically)
{
    struct Scene
    {
        explicit Scene(double inSkin)
        {
            world.AddGroundPlane(0.0);
            BodySettings desc;
            desc.mass = 20.0;
            desc.proxyLevel = 8;
            desc.transform = btTransform(btQuaternion(btVector3(0, 1, 0), 0.4f), btVector3(0, 0.52f, 0));
            deformable = world.Deformables().CreateBody(test::ShapeAsset("box", 3000, 10), desc);
            DeformableShape& shape = *World::Shape(deformable);
            DeformableShapeSettings settings = shape.Settings();
            settings.pairCacheSkin = inSkin;
            shape.SetSettings(settings);
            // Over the top face (1 m up once the box stands), a little apart, dropped one after another.
            for (int i = 0; i < 6; ++i)
            {
                const btVector3 at(btScalar(-0.3 + 0.12 * i), btScalar(1.15 + 0.1 * i),
                                   btScalar(0.1 * (i % 3) - 0.1));
                std::unique_ptr<btCollisionShape> shapeOf;
                if (i % 3 == 0)
                    shapeOf = std::make_unique<btSphereShape>(0.05f);
                else if (i % 3 == 1)
                    shapeOf = std::make_unique<btBoxShape>(btVector3(0.05f, 0.03f, 0.04f));
                else
                    shapeOf = std::make_unique<btCapsuleShape>(0.03f, 0.08f);
                rigid.push_back(world.AddRigid(
                    std::move(shapeOf), btTransform(btQuaternion(btVector3(1, 0, 0), btScalar(0.3 * i)), at),
                    0.2));
            }
        }
        // The chair's state and every rigid body's transform and velocities, as bytes.
        std::vector<unsigned char> State()
        {
            std::vector<unsigned char> bytes = Snapshot(world.Deformables());
            for (const btRigidBody* body : rigid)
                AppendRigidState(bytes, *body);
            return bytes;
        }
        SampleWorld world;
        btRigidBody* deformable = nullptr; ///< The deformable box.
        std::vector<btRigidBody*> rigid;
        std::uint64_t overlapTests = 0;
    };
    Scene with(DeformableShapeSettings{}.pairCacheSkin);
    Scene without(0.0);
    int mismatches = 0, touchingSteps = 0;
    constexpr int cSteps = 300;
    for (int step = 0; step < cSteps; ++step)
    {
        StepBoth(with.world, with.overlapTests, without.world, without.overlapTests);
        CompareStates(with.State(), without.State(), step, mismatches);
        // Steps in which some rigid body touches the deformable (a manifold of theirs has points).
        btDispatcher& dispatcher = *with.world.Dynamics().getDispatcher();
        bool touching = false;
        for (int m = 0; m < dispatcher.getNumManifolds(); ++m)
        {
            const btPersistentManifold* manifold = dispatcher.getManifoldByIndexInternal(m);
            const bool deformablePair =
                manifold->getBody0() == with.deformable || manifold->getBody1() == with.deformable;
            const bool groundPair =
                manifold->getBody0()->isStaticObject() || manifold->getBody1()->isStaticObject();
            touching = touching || (deformablePair && !groundPair && manifold->getNumContacts() > 0);
        }
        touchingSteps += touching ? 1 : 0;
    }
    EXPECT_EQ(mismatches, 0) << "steps whose state differs, of " << cSteps;
    const double ratio = double(with.overlapTests) / double(without.overlapTests);
    std::cout << "[ info ] " << touchingSteps << " of " << cSteps
              << " steps with a rigid body on the box; overlap tests " << with.overlapTests
              << " with the skin, " << without.overlapTests << " without: ratio " << ratio << "\n";
    EXPECT_GT(touchingSteps, cSteps / 2);
    EXPECT_LT(ratio, 0.9);
}

} // namespace
} // namespace bdt
