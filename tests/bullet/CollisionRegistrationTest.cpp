// Registration of the narrowphase in Bullet's dispatch tables, with Bullet's default configuration and with
// bdt::CollisionConfiguration.

#include "bullet/CreateFunctions.h"
#include "bullet/narrowphase/DeformableCollisionAlgorithm.h"
#include "CollisionTestScenes.h"

#include <BulletCollision/BroadphaseCollision/btCollisionAlgorithm.h>
#include <BulletCollision/CollisionDispatch/btCollisionDispatcher.h>
#include <BulletCollision/CollisionDispatch/btCollisionObjectWrapper.h>
#include <BulletCollision/CollisionDispatch/btCompoundCollisionAlgorithm.h>
#include <BulletCollision/CollisionShapes/btMultiSphereShape.h>
#include <BulletCollision/CollisionShapes/btSdfCollisionShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <LinearMath/btPoolAllocator.h>
#include <bdt/bullet/CollisionConfiguration.h>
#include <bdt/bullet/CollisionRegistration.h>
#include <bdt/core/base/Error.h>
#include <gtest/gtest.h>
#include <string>
#include <typeinfo>

namespace bdt::test::collision
{
namespace
{

constexpr int cCustom = CUSTOM_CONCAVE_SHAPE_TYPE;

// A dispatcher that shows its tables (protected in Bullet).
class InspectableDispatcher : public btCollisionDispatcher
{
public:
    using btCollisionDispatcher::btCollisionDispatcher;
    btCollisionAlgorithmCreateFunc* Contact(int inType0, int inType1) const
    {
        return m_doubleDispatchContactPoints[inType0][inType1];
    }
    btCollisionAlgorithmCreateFunc* Closest(int inType0, int inType1) const
    {
        return m_doubleDispatchClosestPoints[inType0][inType1];
    }
};

btDefaultCollisionConstructionInfo SizedInfo()
{
    btDefaultCollisionConstructionInfo info;
    info.m_customCollisionAlgorithmMaxElementSize = int(CollisionAlgorithmSize());
    return info;
}

// Creates the algorithm the dispatcher picks for two shapes, hands it to inCheck, destroys it.
template <class Check>
void WithAlgorithm(btCollisionDispatcher& ioDispatcher, btCollisionShape* inShape0,
                   btCollisionShape* inShape1, ebtDispatcherQueryType inQuery, Check&& inCheck)
{
    btCollisionObject object0;
    btCollisionObject object1;
    object0.setCollisionShape(inShape0);
    object1.setCollisionShape(inShape1);
    const btCollisionObjectWrapper wrap0(nullptr, inShape0, &object0, object0.getWorldTransform(), -1, -1);
    const btCollisionObjectWrapper wrap1(nullptr, inShape1, &object1, object1.getWorldTransform(), -1, -1);
    btCollisionAlgorithm* algorithm = ioDispatcher.findAlgorithm(&wrap0, &wrap1, nullptr, inQuery);
    inCheck(algorithm);
    if (algorithm != nullptr)
    {
        algorithm->~btCollisionAlgorithm();
        ioDispatcher.freeCollisionAlgorithm(algorithm);
    }
}

TEST(CollisionRegistration, FillsTheRowAndColumnOfBothTablesAndNothingElse)
{
    btDefaultCollisionConfiguration configuration(SizedInfo());
    InspectableDispatcher dispatcher(&configuration);
    registerCollisionAlgorithms(dispatcher);
    for (int i = 0; i < MAX_BROADPHASE_COLLISION_TYPES; ++i)
        for (int j = 0; j < MAX_BROADPHASE_COLLISION_TYPES; ++j)
        {
            const bool ours = i == cCustom || j == cCustom;
            const auto* contact = dynamic_cast<DeformableCreateFunc*>(dispatcher.Contact(i, j));
            const auto* closest = dynamic_cast<DeformableCreateFunc*>(dispatcher.Closest(i, j));
            if (!ours)
            {
                EXPECT_EQ(dispatcher.Contact(i, j), configuration.getCollisionAlgorithmCreateFunc(i, j));
                EXPECT_EQ(dispatcher.Closest(i, j), configuration.getClosestPointsAlgorithmCreateFunc(i, j));
                continue;
            }
            ASSERT_NE(contact, nullptr) << i << ", " << j;
            ASSERT_NE(closest, nullptr) << i << ", " << j;
            // Each forwards to what the cell had before, in its own table.
            EXPECT_EQ(contact->mFallback, configuration.getCollisionAlgorithmCreateFunc(i, j));
            EXPECT_EQ(closest->mFallback, configuration.getClosestPointsAlgorithmCreateFunc(i, j));
            EXPECT_FALSE(contact->mClosestPoints);
            EXPECT_TRUE(closest->mClosestPoints);
        }

    // Registering again changes nothing (the same forwarders).
    btCollisionAlgorithmCreateFunc* before = dispatcher.Contact(cCustom, BOX_SHAPE_PROXYTYPE);
    registerCollisionAlgorithms(dispatcher);
    EXPECT_EQ(dispatcher.Contact(cCustom, BOX_SHAPE_PROXYTYPE), before);
}

TEST(CollisionRegistration, FindAlgorithmGivesTheNarrowphaseForEveryShapeKindInBothOrdersAndTables)
{
    btDefaultCollisionConfiguration configuration(SizedInfo());
    btCollisionDispatcher dispatcher(&configuration);
    registerCollisionAlgorithms(dispatcher);
    DeformableObject body;
    DeformableObject second;
    btVector3 positions[2] = {btVector3(0, 0, 0), btVector3(0.2, 0, 0)};
    btScalar radii[2] = {0.1, 0.15};
    btMultiSphereShape multiSphere(positions, radii, 2);

    std::vector<std::pair<std::string, btCollisionShape*>> others;
    std::vector<OtherShape> owned;
    for (const char* name : {"sphere", "box", "capsuleX", "capsuleY", "capsuleZ", "cylinder", "cone", "hull",
                             "plane", "mesh", "scaledMesh", "heightfield"})
    {
        owned.push_back(MakeOtherShape(name));
        others.emplace_back(name, owned.back().shape.get());
    }
    others.emplace_back("multi-sphere", &multiSphere);
    others.emplace_back("second deformable", second.shape.get());

    for (const ebtDispatcherQueryType query : {BT_CONTACT_POINT_ALGORITHMS, BT_CLOSEST_POINT_ALGORITHMS})
        for (const auto& [name, shape] : others)
            for (const bool deformableFirst : {true, false})
            {
                btCollisionShape* shape0 = deformableFirst ? body.shape.get() : shape;
                btCollisionShape* shape1 = deformableFirst ? shape : body.shape.get();
                WithAlgorithm(dispatcher, shape0, shape1, query,
                              [&](btCollisionAlgorithm* inAlgorithm)
                              {
                                  const auto* ours = dynamic_cast<DeformableCollisionAlgorithm*>(inAlgorithm);
                                  ASSERT_NE(ours, nullptr)
                                      << name << (deformableFirst ? " second" : " first");
                                  EXPECT_EQ(ours->ClosestPoints(), query == BT_CLOSEST_POINT_ALGORITHMS)
                                      << name;
                              });
            }

    // Compounds go to Bullet's compound algorithm, in both orders.
    OtherShape compound = MakeOtherShape("compound");
    for (const bool deformableFirst : {true, false})
        WithAlgorithm(dispatcher, deformableFirst ? body.shape.get() : compound.shape.get(),
                      deformableFirst ? compound.shape.get() : body.shape.get(), BT_CONTACT_POINT_ALGORITHMS,
                      [&](btCollisionAlgorithm* inAlgorithm)
                      { EXPECT_NE(dynamic_cast<btCompoundCollisionAlgorithm*>(inAlgorithm), nullptr); });
}

TEST(CollisionRegistration, APairWithoutADeformableInTheCustomCellIsForwarded)
{
    // btSdfCollisionShape has the same shape type as a DeformableShape in Bullet 3.24.
    btSdfCollisionShape sdf;
    ASSERT_EQ(sdf.getShapeType(), cCustom);
    btSphereShape sphere(0.5);

    btDefaultCollisionConfiguration plainConfiguration(SizedInfo());
    btCollisionDispatcher plain(&plainConfiguration);
    btDefaultCollisionConfiguration configuration(SizedInfo());
    btCollisionDispatcher registered(&configuration);
    registerCollisionAlgorithms(registered);
    CollisionConfiguration ownConfiguration;
    btCollisionDispatcher own(&ownConfiguration);

    for (const ebtDispatcherQueryType query : {BT_CONTACT_POINT_ALGORITHMS, BT_CLOSEST_POINT_ALGORITHMS})
        for (const bool sdfFirst : {true, false})
        {
            btCollisionShape* shape0 = sdfFirst ? static_cast<btCollisionShape*>(&sdf) : &sphere;
            btCollisionShape* shape1 = sdfFirst ? static_cast<btCollisionShape*>(&sphere) : &sdf;
            std::string expected;
            WithAlgorithm(plain, shape0, shape1, query,
                          [&](btCollisionAlgorithm* inAlgorithm)
                          {
                              ASSERT_NE(inAlgorithm, nullptr);
                              expected = typeid(*inAlgorithm).name();
                          });
            for (btCollisionDispatcher* dispatcher : {&registered, &own})
                WithAlgorithm(*dispatcher, shape0, shape1, query,
                              [&](btCollisionAlgorithm* inAlgorithm)
                              {
                                  ASSERT_NE(inAlgorithm, nullptr);
                                  EXPECT_EQ(dynamic_cast<DeformableCollisionAlgorithm*>(inAlgorithm),
                                            nullptr);
                                  EXPECT_EQ(typeid(*inAlgorithm).name(), expected);
                              });
        }
}

TEST(CollisionRegistration, ThrowsOnAnAlgorithmPoolTooSmallAndWorksWithTheCustomElementSize)
{
    btPoolAllocator smallPool(16, 64);
    btDefaultCollisionConstructionInfo small;
    small.m_collisionAlgorithmPool = &smallPool;
    btDefaultCollisionConfiguration smallConfiguration(small);
    btCollisionDispatcher smallDispatcher(&smallConfiguration);
    try
    {
        registerCollisionAlgorithms(smallDispatcher);
        ADD_FAILURE() << "no exception";
    }
    catch (const Error& error)
    {
        const std::string what = error.what();
        EXPECT_EQ(what.find('\n'), std::string::npos);
        EXPECT_NE(what.find(std::to_string(CollisionAlgorithmSize())), std::string::npos) << what;
    }
    EXPECT_THROW(CollisionConfiguration{small}, Error);

    btDefaultCollisionConfiguration sized(SizedInfo());
    btCollisionDispatcher dispatcher(&sized);
    EXPECT_NO_THROW(registerCollisionAlgorithms(dispatcher));
    EXPECT_GE(std::size_t(sized.getCollisionAlgorithmPool()->getElementSize()), CollisionAlgorithmSize());
}

TEST(CollisionRegistration, AlgorithmSizeCoversOursAndBulletsCompoundAndFitsTheDefaultPool)
{
    EXPECT_GE(CollisionAlgorithmSize(), sizeof(DeformableCollisionAlgorithm));
    EXPECT_GE(CollisionAlgorithmSize(), sizeof(btCompoundCollisionAlgorithm));
    btDefaultCollisionConfiguration plain;
    EXPECT_LE(CollisionAlgorithmSize(), std::size_t(plain.getCollisionAlgorithmPool()->getElementSize()));
}

TEST(CollisionConfiguration, RegistersByItselfAndMakesRegistrationANoOp)
{
    btDefaultCollisionConstructionInfo info;
    info.m_customCollisionAlgorithmMaxElementSize = 8; // raised by the configuration
    CollisionConfiguration configuration(info);
    EXPECT_GE(std::size_t(configuration.getCollisionAlgorithmPool()->getElementSize()),
              CollisionAlgorithmSize());
    InspectableDispatcher dispatcher(&configuration);
    btDefaultCollisionConfiguration bullet;
    for (int i = 0; i < MAX_BROADPHASE_COLLISION_TYPES; ++i)
    {
        for (const auto& [a, b] : {std::pair{cCustom, i}, std::pair{i, cCustom}})
        {
            const auto* contact = dynamic_cast<DeformableCreateFunc*>(dispatcher.Contact(a, b));
            const auto* closest = dynamic_cast<DeformableCreateFunc*>(dispatcher.Closest(a, b));
            ASSERT_NE(contact, nullptr);
            ASSERT_NE(closest, nullptr);
            // Forwarding to Bullet's default function of the cell (same kind of function as Bullet's own).
            EXPECT_EQ(typeid(*contact->mFallback), typeid(*bullet.getCollisionAlgorithmCreateFunc(a, b)));
            EXPECT_EQ(typeid(*closest->mFallback), typeid(*bullet.getClosestPointsAlgorithmCreateFunc(a, b)));
        }
    }
    btCollisionAlgorithmCreateFunc* before = dispatcher.Contact(cCustom, SPHERE_SHAPE_PROXYTYPE);
    registerCollisionAlgorithms(dispatcher);
    EXPECT_EQ(dispatcher.Contact(cCustom, SPHERE_SHAPE_PROXYTYPE), before);
    EXPECT_EQ(dynamic_cast<DeformableCreateFunc*>(before)->mFallback,
              configuration.btDefaultCollisionConfiguration::getCollisionAlgorithmCreateFunc(
                  cCustom, SPHERE_SHAPE_PROXYTYPE));
}

} // namespace
} // namespace bdt::test::collision
