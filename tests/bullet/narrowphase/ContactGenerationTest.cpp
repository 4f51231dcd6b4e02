// The surface model's bookkeeping of a pair's contacts (`GenerateContacts`, ContactGeneration.cpp): the proxy
// contacts that stand in for patches that cross or lie deep (fallbacks) are withdrawn when the pair makes surface
// contacts elsewhere, and nothing else is; a fallback the proxy's rest radius drops leaves no trace; and one shape
// on both sides of a pair collides as two shapes of the same state do. Two soft modal chairs with large q, deep
// in each other or in a box, make every case many times over.
#include "bullet/narrowphase/ContactGeneration.h"
#include "bullet/CollisionTestScenes.h"
#include "support/BulletScenes.h"

#include <BulletCollision/CollisionDispatch/btCollisionObject.h>
#include <BulletCollision/CollisionDispatch/btCollisionObjectWrapper.h>
#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>
#include <cmath>
#include <gtest/gtest.h>
#include <random>
#include <span>
#include <vector>

namespace bdt
{
namespace
{

constexpr double cMaxDistance = 0.02; // m, the search distance of the calls

// A deformable chair of 10 vibration modes of a soft solid (2 MPa) whose modes may move a vertex by half the
// chair's bounding radius: the surface model with its contact pieces, proxies at level 7.
std::unique_ptr<DeformableShape> SoftModalChair()
{
    DeformableShapeSettings settings;
    settings.proxyLevel = 7;
    settings.contactModel = EContactModel::Surface;
    auto shape = std::make_unique<DeformableShape>(test::ModalShapeAsset("chair", 3000, 10, 2e6), settings);
    ModalSettings modal = shape->Dynamics().Settings();
    modal.strainLimit = 0.5f;
    shape->Dynamics().SetSettings(modal);
    return shape;
}

// A random pair placement: q of every size from barely bent to the strain limit (SetQ clamps), and B at a
// random turn, its centre within 0.3 to 1 times `inReach` of A's in a random direction.
struct Placement
{
    std::vector<float> qA, qB;
    btTransform transformA, transformB;
};

Placement RandomPlacement(std::mt19937& ioRandom, double inReach)
{
    std::uniform_real_distribution<double> symmetric(-1.0, 1.0), unit(0.0, 1.0);
    Placement placement;
    const double amplitude = std::pow(10.0, -2.0 + 3.0 * unit(ioRandom));
    for (int j = 0; j < 10; ++j)
    {
        placement.qA.push_back(float(amplitude * symmetric(ioRandom)));
        placement.qB.push_back(float(amplitude * symmetric(ioRandom)));
    }
    placement.transformA = btTransform(test::RandomQuaternion(ioRandom), btVector3(0, 0, 0));
    const Vec3d direction = Vec3d(symmetric(ioRandom), symmetric(ioRandom), symmetric(ioRandom)).normalized();
    const Vec3d centre = inReach * (0.3 + 0.7 * unit(ioRandom)) * direction;
    placement.transformB = btTransform(test::RandomQuaternion(ioRandom), ToBtVector(centre));
    return placement;
}

struct Generated
{
    std::vector<PairContact> contacts;
    QueryStats stats;
};

// `GenerateContacts` of A and B appended to `inBefore` (the list of an earlier part of the pair, say).
Generated Generate(const btCollisionShape& inA, const btTransform& inTransformA, const btCollisionShape& inB,
                   const btTransform& inTransformB, const std::vector<PairContact>& inBefore = {})
{
    btCollisionObject objectA, objectB;
    objectA.setCollisionShape(const_cast<btCollisionShape*>(&inA));
    objectB.setCollisionShape(const_cast<btCollisionShape*>(&inB));
    const btCollisionObjectWrapper a(nullptr, &inA, &objectA, inTransformA, -1, -1);
    const btCollisionObjectWrapper b(nullptr, &inB, &objectB, inTransformB, -1, -1);
    Generated generated;
    generated.contacts = inBefore;
    GenerateContacts(a, b, cMaxDistance, generated.contacts, generated.stats);
    return generated;
}

bool SameContact(const PairContact& inX, const PairContact& inY)
{
    return inX.pointOnB == inY.pointOnB && inX.normal == inY.normal && inX.distance == inY.distance &&
           inX.feature0.node == inY.feature0.node && inX.feature0.triangle == inY.feature0.triangle &&
           inX.feature0.barycentric == inY.feature0.barycentric && inX.feature1.node == inY.feature1.node &&
           inX.feature1.triangle == inY.feature1.triangle &&
           inX.feature1.barycentric == inY.feature1.barycentric && inX.index1 == inY.index1 &&
           inX.partId1 == inY.partId1;
}

// The same contacts, bit for bit, in the same order; the first difference otherwise.
testing::AssertionResult SameContacts(std::span<const PairContact> inX, std::span<const PairContact> inY)
{
    if (inX.size() != inY.size())
        return testing::AssertionFailure() << inX.size() << " contacts against " << inY.size();
    for (std::size_t i = 0; i < inX.size(); ++i)
        if (!SameContact(inX[i], inY[i]))
            return testing::AssertionFailure() << "contact " << i << " of " << inX.size() << " differs";
    return testing::AssertionSuccess();
}

std::size_t SurfaceCount(std::span<const PairContact> inContacts)
{
    std::size_t count = 0;
    for (const PairContact& contact : inContacts)
        count += contact.feature0.OnSurface() ? 1 : 0;
    return count;
}

// A contact no narrowphase makes: what an earlier part of the pair left in the list.
PairContact Sentinel()
{
    PairContact sentinel;
    sentinel.pointOnB = Vec3d(7.0, 8.0, 9.0);
    sentinel.distance = -0.125;
    sentinel.feature0.node = 424242;
    return sentinel;
}

TEST(ContactGeneration, AFallbackDroppedAtItsRestRadiusIsNotWithdrawnForAnotherContact)
{
    // The case: a proxy pair whose patches cross (or, against a box, lie deep in it) makes no surface contact,
    // so its proxy contact would stand in; at the proxy's rest radius it is apart and none is made; then the pair
    // makes surface contacts elsewhere and withdraws its fallbacks. Only fallbacks go: neither a contact the
    // list held before the call (an earlier part of the pair) nor anything outside the list.
    std::unique_ptr<DeformableShape> a = SoftModalChair(), b = SoftModalChair();
    btBoxShape box(btVector3(0.3f, 0.3f, 0.3f));
    const double radius = a->Asset().BoundingRadius();
    std::mt19937 random(1);
    int cases[2] = {0, 0}; // the case made, against a deformable and against a box
    int trial = 0;
    for (; trial < 400 && (cases[0] < 3 || cases[1] < 3); ++trial)
    {
        const bool deformable = trial % 2 == 0;
        const Placement placement = RandomPlacement(random, deformable ? 2.0 * radius : 1.2 * radius);
        ASSERT_TRUE(a->SetQ(placement.qA) && b->SetQ(placement.qB));
        const btCollisionShape& other = deformable ? static_cast<const btCollisionShape&>(*b) : box;
        const Generated alone = Generate(*a, placement.transformA, other, placement.transformB);
        const Generated after = Generate(*a, placement.transformA, other, placement.transformB, {Sentinel()});

        // The list before the call is left as it was, and the call's contacts do not depend on it.
        ASSERT_FALSE(after.contacts.empty()) << "trial " << trial;
        EXPECT_TRUE(SameContact(after.contacts[0], Sentinel())) << "trial " << trial;
        EXPECT_TRUE(SameContacts(alone.contacts, std::span(after.contacts).subspan(1))) << "trial " << trial;

        const std::size_t surface = SurfaceCount(alone.contacts);
        for (const PairContact& contact : alone.contacts)
        {
            EXPECT_LE(contact.distance, cMaxDistance) << "trial " << trial;
            EXPECT_FALSE(contact.withdrawable) << "trial " << trial;
        }
        // Fallbacks are withdrawn only for surface contacts that hold the bodies apart instead; against a box
        // every proxy contact of a pair with surface contacts is such a fallback (no speculative pairs there).
        if (alone.stats.fallbacksWithdrawn > 0)
        {
            EXPECT_GT(surface, 0u) << "trial " << trial;
        }
        if (!deformable && surface > 0)
        {
            EXPECT_EQ(surface, alone.contacts.size()) << "trial " << trial;
        }
        EXPECT_LE(alone.stats.fallbacksApart + alone.stats.fallbacksWithdrawn, alone.stats.fallbacks);

        if (alone.stats.fallbacksApart > 0 && surface > 0)
            ++cases[deformable ? 0 : 1];
    }
    EXPECT_GE(cases[0], 3) << "two deformables: the case was made " << cases[0] << " times in " << trial << " trials";
    EXPECT_GE(cases[1], 3) << "a box: the case was made " << cases[1] << " times in " << trial << " trials";
}

TEST(ContactGeneration, AStaticMeshWithdrawsOnlyItsCrossingFallbacks)
{
    // The same bookkeeping against a static triangle mesh (`ConcaveSurfaceContacts`): a chair whose patches the
    // bumpy terrain cuts, resting on it elsewhere, keeps its resting contacts and loses only the fallbacks.
    std::unique_ptr<DeformableShape> chair = SoftModalChair();
    const test::collision::OtherShape terrain = test::collision::MakeOtherShape("mesh");
    std::mt19937 random(3);
    std::uniform_real_distribution<double> symmetric(-1.0, 1.0);
    int withdrew = 0;
    for (int trial = 0; trial < 60; ++trial)
    {
        Placement placement = RandomPlacement(random, 1.0);
        ASSERT_TRUE(chair->SetQ(placement.qA));
        placement.transformA.setOrigin(btVector3(btScalar(0.8 * symmetric(random)), btScalar(0.3 * symmetric(random)),
                                                 btScalar(0.8 * symmetric(random))));
        const btTransform identity = btTransform::getIdentity();
        const Generated alone = Generate(*chair, placement.transformA, *terrain.shape, identity);
        const Generated after = Generate(*chair, placement.transformA, *terrain.shape, identity, {Sentinel()});
        ASSERT_FALSE(after.contacts.empty()) << "trial " << trial;
        EXPECT_TRUE(SameContact(after.contacts[0], Sentinel())) << "trial " << trial;
        EXPECT_TRUE(SameContacts(alone.contacts, std::span(after.contacts).subspan(1))) << "trial " << trial;
        for (const PairContact& contact : alone.contacts)
        {
            EXPECT_LE(contact.distance, cMaxDistance) << "trial " << trial;
            EXPECT_FALSE(contact.withdrawable) << "trial " << trial;
        }
        if (alone.stats.fallbacksWithdrawn > 0)
        {
            EXPECT_GT(SurfaceCount(alone.contacts), 0u) << "trial " << trial;
        }
        EXPECT_LE(alone.stats.fallbacksApart + alone.stats.fallbacksWithdrawn, alone.stats.fallbacks);
        withdrew += alone.stats.fallbacksWithdrawn > 0 ? 1 : 0;
    }
    EXPECT_GE(withdrew, 3); // the terrain cut patches of chairs it also held up
}

TEST(ContactGeneration, OneShapeOnBothSidesCollidesAsTwoShapesOfTheSameState)
{
    // A Bullet program may give two collision objects one shape. The pair's two sides then place their patches
    // through one surface cache at two placements: B's must not overwrite the A patch the pair still reads.
    std::unique_ptr<DeformableShape> shared = SoftModalChair(), a = SoftModalChair(), b = SoftModalChair();
    const double radius = shared->Asset().BoundingRadius();
    std::mt19937 random(2);
    int withSurface = 0;
    for (int trial = 0; trial < 40; ++trial)
    {
        Placement placement = RandomPlacement(random, 2.0 * radius);
        placement.qB = placement.qA; // one shape, one q
        ASSERT_TRUE(shared->SetQ(placement.qA) && a->SetQ(placement.qA) && b->SetQ(placement.qA));
        const Generated one = Generate(*shared, placement.transformA, *shared, placement.transformB);
        const Generated two = Generate(*a, placement.transformA, *b, placement.transformB);
        EXPECT_TRUE(SameContacts(one.contacts, two.contacts)) << "trial " << trial;
        withSurface += one.stats.surfaceContacts > 0 ? 1 : 0;
    }
    EXPECT_GE(withSurface, 10); // the patches were placed and collided in many of the trials
}

} // namespace
} // namespace bdt
