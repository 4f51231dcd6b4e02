// World::DebugDraw: what it draws through btIDebugDraw, checked against the bodies' geometry and Bullet's
// own manifolds.
#include "support/BulletScenes.h"

#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>
#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <LinearMath/btIDebugDraw.h>
#include <bdt/samples/SampleWorld.h>
#include <bdt/adapter/World.h>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>
#include <gtest/gtest.h>
#include <vector>

namespace bdt
{
namespace
{

constexpr double cStep = 1.0 / 60.0;

/// Records every sphere and contact point drawn; anything else drawn is counted as a line.
class RecordingDrawer final : public btIDebugDraw
{
public:
    struct DrawnSphere
    {
        Vec3d center;
        double radius;
    };
    struct DrawnContact
    {
        Vec3d point;
        Vec3d normal;
        double distance;
    };

    std::vector<DrawnSphere> spheres;
    std::vector<DrawnContact> contacts;
    int lines = 0;

    void drawSphere(const btVector3& inCenter, btScalar inRadius, const btVector3&) override
    {
        spheres.push_back({ToVec3d(inCenter), double(inRadius)});
    }
    void drawContactPoint(const btVector3& inPoint, const btVector3& inNormal, btScalar inDistance, int,
                          const btVector3&) override
    {
        contacts.push_back({ToVec3d(inPoint), ToVec3d(inNormal), double(inDistance)});
    }
    void drawLine(const btVector3&, const btVector3&, const btVector3&) override { ++lines; }
    void reportErrorWarning(const char*) override {}
    void draw3dText(const btVector3&, const char*) override {}
    void setDebugMode(int) override {}
    int getDebugMode() const override { return DBG_DrawWireframe; }
};

/// Two deformable boxes, one stacked on the other on the ground plane, vibrating (the top one is plucked),
/// after `inSteps` steps: they touch each other and the ground.
struct StackScene
{
    SampleWorld world;
    btRigidBody* bottom = nullptr;
    btRigidBody* top = nullptr;

    explicit StackScene(int inSteps)
    {
        world.AddGroundPlane();
        const auto asset = test::ShapeAsset("box", 1200, 10);
        const auto bounds = asset->GetModel().RestBounds();
        const double height = bounds.max().y() - bounds.min().y();
        const double bottomY = 0.02 - bounds.min().y(); // the mesh frame's origin, its underside 2 cm up
        BodySettings desc;
        desc.mass = 2.0;
        desc.transform.setOrigin(btVector3(0, btScalar(bottomY), 0));
        bottom = world.Deformables().CreateBody(asset, desc);
        desc.transform.setOrigin(btVector3(0.2f, btScalar(bottomY + height + 0.25), 0.1f));
        top = world.Deformables().CreateBody(asset, desc);
        world.Step(inSteps, cStep);
    }
};

/// Brute force: the largest distance from any deformed vertex under `inNode` to the drawn sphere's centre,
/// minus its radius (<= 0 when the sphere contains them).
double WorstVertexOutside(btRigidBody& inBody, std::uint32_t inNode,
                          const RecordingDrawer::DrawnSphere& inSphere)
{
    const DeformableShape& shape = *World::Shape(&inBody);
    const BDTreeNode& node = shape.Asset().Tree().Node(inNode);
    const auto triangles = shape.Asset().GetModel().Triangles();
    double worst = -1e300;
    for (std::uint32_t t = node.firstTriangle; t < node.firstTriangle + node.triangleCount; ++t)
        for (std::uint32_t vertex : triangles[t])
            worst = std::max(worst, (test::DeformedVertexWorld(inBody, vertex) - inSphere.center).norm() -
                                        inSphere.radius);
    return worst;
}

TEST(WorldDebugDraw, NothingWhenEverythingIsOff)
{
    StackScene scene(30);
    RecordingDrawer drawer;
    DebugDrawSettings options;
    options.spheres = false;
    options.proxies = false;
    options.contacts = false;
    scene.world.Deformables().DebugDraw(drawer, options);
    EXPECT_TRUE(drawer.spheres.empty());
    EXPECT_TRUE(drawer.contacts.empty());
    EXPECT_EQ(drawer.lines, 0);
}

TEST(WorldDebugDraw, SpheresOfALevelContainTheirDeformedVertices)
{
    StackScene scene(45);
    // The top box is vibrating: its spheres are the updated ones, not the rest ones.
    const DeformableShape& topShape = *World::Shape(scene.top);
    double modal = 0.0;
    for (float q : topShape.State().Q())
        modal += std::abs(q);
    ASSERT_GT(modal, 0.0) << "the top box should vibrate after landing";

    for (std::uint32_t level : {0u, 3u, 6u, 10u, 14u})
    {
        SCOPED_TRACE(testing::Message() << "level " << level);
        RecordingDrawer drawer;
        DebugDrawSettings options;
        options.spheres = true;
        options.sphereLevel = level;
        options.proxies = false;
        options.contacts = false;
        scene.world.Deformables().DebugDraw(drawer, options);
        // Per body, in creation order, the nodes of the level (clamped to the proxy level L = 10).
        std::size_t drawn = 0;
        for (btRigidBody* body : {scene.bottom, scene.top})
        {
            const DeformableShape& shape = *World::Shape(body);
            const BDTree& tree = shape.Asset().Tree();
            const std::uint32_t shown = std::min(level, shape.State().Proxies().Level());
            for (std::uint32_t node = tree.LevelBegin(shown); node < tree.LevelEnd(shown); ++node)
            {
                ASSERT_LT(drawn, drawer.spheres.size());
                EXPECT_LE(WorstVertexOutside(*body, node, drawer.spheres[drawn]), 1e-6) << "node " << node;
                ++drawn;
            }
        }
        EXPECT_EQ(drawer.spheres.size(), drawn);
        EXPECT_GT(drawn, 0u);
    }
}

TEST(WorldDebugDraw, ContactsAndProxiesAreThoseOfBulletsManifolds)
{
    StackScene scene(90);
    btDispatcher& dispatcher = *scene.world.Dynamics().getDispatcher();
    // Brute force over Bullet's manifolds: the contact points on deformable bodies and, for each deformable
    // side, the point on that side, which lies on its proxy sphere (rest radius about the moved centre, so
    // within the updated radius drawn).
    struct ExpectedProxy
    {
        Vec3d pointOnSide;
    };
    std::vector<Vec3d> expectedPoints;
    std::vector<ExpectedProxy> expectedProxies;
    for (int m = 0; m < dispatcher.getNumManifolds(); ++m)
    {
        const btPersistentManifold& manifold = *dispatcher.getManifoldByIndexInternal(m);
        const bool deformable0 = AsDeformable(manifold.getBody0()->getCollisionShape()) != nullptr;
        const bool deformable1 = AsDeformable(manifold.getBody1()->getCollisionShape()) != nullptr;
        if (!deformable0 && !deformable1)
            continue;
        for (int p = 0; p < manifold.getNumContacts(); ++p)
        {
            const btManifoldPoint& point = manifold.getContactPoint(p);
            expectedPoints.push_back(ToVec3d(point.getPositionWorldOnB()));
            if (deformable0 && point.m_index0 >= 0)
                expectedProxies.push_back({ToVec3d(point.getPositionWorldOnA())});
            if (deformable1 && point.m_index1 >= 0)
                expectedProxies.push_back({ToVec3d(point.getPositionWorldOnB())});
        }
    }
    ASSERT_GT(expectedPoints.size(), 4u) << "the boxes should touch each other and the ground";

    RecordingDrawer drawer;
    DebugDrawSettings options;
    options.spheres = false;
    options.proxies = true;
    options.contacts = true;
    scene.world.Deformables().DebugDraw(drawer, options);
    ASSERT_EQ(drawer.contacts.size(), expectedPoints.size());
    for (std::size_t i = 0; i < expectedPoints.size(); ++i)
    {
        EXPECT_LT((drawer.contacts[i].point - expectedPoints[i]).norm(), 1e-6);
        EXPECT_NEAR(drawer.contacts[i].normal.norm(), 1.0, 1e-5);
    }
    ASSERT_EQ(drawer.spheres.size(), expectedProxies.size());
    // In drawing order (manifold by manifold, point by point, side 0 then side 1): each proxy drawn holds the
    // contact's point on its side, and is a proxy-sized sphere.
    double largestProxy = 0.0;
    for (btRigidBody* body : {scene.bottom, scene.top})
    {
        DeformableShape& shape = *World::Shape(body);
        const BDTree& tree = shape.Asset().Tree();
        const std::uint32_t level = shape.State().Proxies().Level();
        for (std::uint32_t node = tree.LevelBegin(level); node < tree.LevelEnd(level); ++node)
            largestProxy = std::max(largestProxy, double(shape.State().Sphere(node).radius));
    }
    // The manifolds were made before the solver moved the bodies in the last step; the drawing uses where
    // they are now: allow the largest distance a point moved in one step.
    const double moved =
        std::max(test::MaxPointSpeed(*scene.bottom), test::MaxPointSpeed(*scene.top)) * cStep;
    for (std::size_t i = 0; i < expectedProxies.size(); ++i)
    {
        const RecordingDrawer::DrawnSphere& sphere = drawer.spheres[i];
        EXPECT_LE(sphere.radius, largestProxy + 1e-6);
        EXPECT_LE((expectedProxies[i].pointOnSide - sphere.center).norm(), sphere.radius + moved + 1e-5)
            << "proxy " << i << ": the contact's point is not on the proxy drawn";
    }
}

} // namespace
} // namespace bdt
