// A deformable body against every kind of Bullet shape, with dynamics: a deformable box dropped onto a static
// triangle mesh, heightfield, convex primitives, convex hull and compound comes to rest on each as it does on
// a plane; dynamic convex primitives and a compound dropped onto a deformable box come to rest on its top.
//
// Bullet's collision margins are left at their defaults and accounted for explicitly: the static supports'
// surface heights and the dynamic primitives' surface points (`btConvexShape::localGetSupportingVertex`)
// include them. A sphere's or capsule's margin is its radius and a box's or cylinder's lies inside its half
// extents, so those surfaces are where their dimensions say; a cone's and a hull's margin (0.04 m) is added
// outside their points.
//
// A deformable touches other shapes with its proxy spheres at its level L (BD-Tree paper §3.4), which bulge
// out of its faces by up to their radius: a body stands up to a proxy diameter above the surface of its
// triangles, and the bounds below say so. That is the contact model's resolution, so each deformable box is
// given a level that suits what it touches (`DroppedBox`, `SupportingBox`).
#include "support/BulletScenes.h"

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btBvhTriangleMeshShape.h>
#include <BulletCollision/CollisionShapes/btCapsuleShape.h>
#include <BulletCollision/CollisionShapes/btCompoundShape.h>
#include <BulletCollision/CollisionShapes/btConeShape.h>
#include <BulletCollision/CollisionShapes/btConvexHullShape.h>
#include <BulletCollision/CollisionShapes/btCylinderShape.h>
#include <BulletCollision/CollisionShapes/btHeightfieldTerrainShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/CollisionShapes/btTriangleMesh.h>
#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>
#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <algorithm>
#include <bdt/adapter/World.h>
#include <bdt/bullet/Conversions.h>
#include <cmath>
#include <functional>
#include <gtest/gtest.h>
#include <iostream>
#include <limits>
#include <numbers>
#include <random>

namespace bdt
{
namespace
{

constexpr double cStep = 1.0 / 60.0;
constexpr int cSettleSteps = 240;    // 4 s to settle,
constexpr int cWatchSteps = 60;      // then 1 s watched.
constexpr double cTolerance = 0.001; // m: penetration allowed beyond the margins.
constexpr double cRestSpeed = 0.01;  // m/s: at rest below this.
constexpr double cSurfaceGap = 0.002; // m: a body resting on surface contacts ends this close, margins aside.
/// m/s: the bound for a primitive on the dynamic (20 kg) deformable box, where some keep creeping: measured
/// up to 1.14 cm/s (hull) natively, 1.21 cm/s (hull) in the portable build and 0.93 cm/s (capsule) against
/// double-precision Bullet. Not the reduction to 4 points per region: with its persistence no load-bearing
/// proxy (3 or 4 per primitive) is swapped out over the last 100 steps, and no reduction at all (one manifold
/// per proxy) creeps as much. The cause is Bullet's default friction, one direction per contact point: along
/// the sliding velocity, or a fixed tangent below √ε (0.35 mm/s in float, 15 nm/s in double). A primitive
/// stands slightly tilted on the highest proxy tops (the hull 0.9°), gravity pulls it along that plane, and
/// three such rows do not hold it: the hull creeps downhill at 1.3 mm/s while rocking. With
/// SOLVER_USE_2_FRICTION_DIRECTIONS and 15 iterations every primitive here rests below 0.02 cm/s in all three
/// builds (with 10, the hull on the static box, balanced on a narrow base, rocks at 1.3 cm/s); until the
/// world is set so, this bound only shows they do not slide off.
constexpr double cCreepSpeed = 0.02;
constexpr double cDropHeight = 0.03; // m: gap between the dropped body's contact surface and its support.
constexpr double cInfinity = std::numeric_limits<double>::infinity();

/// A deformable 1 m cube with 10 modes, and the proxy level L its contacts are made at (§3.4).
struct DeformableBox
{
    std::shared_ptr<const DeformableAsset> asset;
    std::uint32_t proxyLevel = 10;
};

/// The box dropped onto supports (section 1): 1200 triangles, contacts at the default level 10 (1024 proxies
/// of 7 to 11 cm). Every support is flat or curved on the scale of metres and the box is compared with the
/// same box on a plane, so the proxies' bumps are common to both; a finer level would cost ×20 in triangles.
DeformableBox DroppedBox()
{
    return {test::ShapeAsset("box", 1200, 10), 10};
}

/// The box that primitives of 20 to 60 cm are dropped onto (section 2), static or dynamic alike so that the
/// two compare: 20064 triangles at the default level 10 (1024 proxies of about 6 cm, each over about 20
/// triangles). `DroppedBox`'s proxies (one or two large triangles each, 7 to 11 cm spheres over 10 cm
/// squares) stood the primitives on bumps whose contact normals tilt by up to 35°, more than the friction
/// angle, and five of them crept at 2 to 10 cm/s. Finer levels (15: one triangle, 1.8 cm, per proxy) hold
/// thousands of near-tied contacts under a face, and the reduction to 4 points per region then swaps
/// load-bearing points from step to step (a known limit of `ReduceContacts`, not tested here).
DeformableBox SupportingBox()
{
    return {test::ShapeAsset("box", 20000, 10), 10};
}

/// Lowest rest-frame y of the proxy spheres at level `inLevel` (centre − radius): where the body's contact
/// surface ends below. The proxies bulge out of the faces, so the body touches a support with them, not its
/// faces.
double LowestProxyY(const DeformableAsset& inAsset, std::uint32_t inLevel)
{
    const ContactProxies& proxies = *inAsset.Proxies(inLevel);
    double lowest = cInfinity;
    for (std::uint32_t node = 0; node < proxies.VisitCount(); ++node)
        if (proxies.IsProxy(node))
            lowest = std::min(lowest, double(proxies.Row(node)[1] - proxies.Row(node)[3]));
    return lowest;
}

/// Highest world y of the body's proxy spheres (at the level the body uses) at rest radius, their centres
/// placed at q = 0 (the body's deflection, millimetres here, is ignored): the top of its contact surface.
double HighestProxyWorldY(btRigidBody& inBody)
{
    const DeformableShape& shape = *World::Shape(&inBody);
    const ContactProxies& proxies = shape.State().Proxies();
    const DeformedBody view = shape.QueryView(inBody.getWorldTransform());
    double highest = -cInfinity;
    for (std::uint32_t node = 0; node < proxies.VisitCount(); ++node)
        if (proxies.IsProxy(node))
        {
            const float* row = proxies.Row(node);
            const Vec3d center = view.pose.Apply(view.scale * Vec3d(row[0], row[1], row[2]));
            highest = std::max(highest, center.y() + view.scale * double(row[3]));
        }
    return highest;
}

/// Placement of `inBox` upright (its rest axes along the world's), the centre of its rest bounds at world
/// x, z = `inX`, `inZ` and its lowest proxy point (at its level) at world y = `inProxyBottom`: the
/// `BodySettings::transform` (the mesh frame's placement).
btTransform UprightAt(const DeformableBox& inBox, double inX, double inProxyBottom, double inZ)
{
    const DeformableAsset& asset = *inBox.asset;
    const auto& bounds = asset.GetModel().RestBounds();
    const Vec3d anchor(0.5 * double(bounds.min().x() + bounds.max().x()),
                       LowestProxyY(asset, inBox.proxyLevel),
                       0.5 * double(bounds.min().z() + bounds.max().z()));
    return btTransform(btMatrix3x3::getIdentity(), ToBtVector(Vec3d(inX, inProxyBottom, inZ) - anchor));
}

/// A body of `inBox` made by `ioWorld` from `inDesc`, at the box's proxy level.
btRigidBody* CreateBox(SampleWorld& ioWorld, const DeformableBox& inBox, BodySettings inDesc)
{
    inDesc.proxyLevel = inBox.proxyLevel;
    return ioWorld.Deformables().CreateBody(inBox.asset, inDesc);
}

/// True if every number of the body's state (transform, velocities, q, q̇) is finite.
bool IsFinite(btRigidBody& inBody)
{
    const btTransform& t = inBody.getWorldTransform();
    double sum = double(t.getOrigin().length2() + inBody.getLinearVelocity().length2() +
                        inBody.getAngularVelocity().length2());
    for (int r = 0; r < 3; ++r)
        sum += double(t.getBasis()[r].length2());
    if (const DeformableShape* shape = World::Shape(&inBody))
    {
        for (double q : shape->Dynamics().QDouble())
            sum += q * q;
        for (double qDot : shape->Dynamics().QDot())
            sum += qDot * qDot;
    }
    return std::isfinite(sum);
}

// --- 1. A deformable box dropped onto static supports ------------------------------------------------------

/// A static support: its shape and what the shape refers to (kept alive as long as the world), its
/// placement (rotated about y only), where the body is dropped, and the analytic height of its upper surface.
struct StaticSupport
{
    std::unique_ptr<btCollisionShape> shape; ///< Null: the ground plane y = `top` (the reference).
    btTransform transform = btTransform::getIdentity();
    double top = 0.0;                ///< World y of the upper surface under the drop point (m).
    double dropX = 0.0, dropZ = 0.0; ///< World x, z of the dropped body's centre.
    /// Local y of the upper collision surface (Bullet's margin included) at local (x, z); −∞ off the shape.
    std::function<double(double, double)> localSurface = [](double, double) { return 0.0; };
    std::unique_ptr<btTriangleMesh> mesh;                    ///< A mesh shape's triangles.
    std::vector<float> heights;                              ///< A heightfield's samples (not copied by it).
    std::vector<std::unique_ptr<btCollisionShape>> children; ///< A compound's children.

    /// World y of the upper surface at world (x, z).
    double Surface(double inX, double inZ) const
    {
        const btVector3 local = transform.invXform(btVector3(btScalar(inX), 0, btScalar(inZ)));
        return double(transform.getOrigin().y()) + localSurface(double(local.x()), double(local.z()));
    }
};

/// −∞ outside the rectangle |x| ≤ inHalfX, |z| ≤ inHalfZ, else inHeight.
double FlatRectangle(double inX, double inZ, double inHalfX, double inHalfZ, double inHeight)
{
    return std::abs(inX) <= inHalfX && std::abs(inZ) <= inHalfZ ? inHeight : -cInfinity;
}

btTransform PlaceRotatedY(double inAngle, double inX, double inY, double inZ)
{
    return btTransform(btQuaternion(btVector3(0, 1, 0), btScalar(inAngle)),
                       btVector3(btScalar(inX), btScalar(inY), btScalar(inZ)));
}

/// A flat 10 m × 10 m btBvhTriangleMeshShape of 12 × 12 cells (288 triangles), rotated about y: the body's
/// footprint crosses triangle edges.
StaticSupport StaticTriangleMesh()
{
    StaticSupport support;
    support.mesh = std::make_unique<btTriangleMesh>();
    const int n = 13;
    const double half = 5.0;
    const auto vertex = [&](int inI, int inJ)
    {
        return btVector3(btScalar(-half + 2.0 * half * inI / (n - 1)), 0,
                         btScalar(-half + 2.0 * half * inJ / (n - 1)));
    };
    for (int i = 0; i + 1 < n; ++i)
        for (int j = 0; j + 1 < n; ++j)
        {
            support.mesh->addTriangle(vertex(i, j), vertex(i, j + 1), vertex(i + 1, j));
            support.mesh->addTriangle(vertex(i + 1, j), vertex(i, j + 1), vertex(i + 1, j + 1));
        }
    support.shape = std::make_unique<btBvhTriangleMeshShape>(support.mesh.get(), true);
    support.transform = PlaceRotatedY(0.3, 0.1, 0.2, -0.2);
    support.top = 0.2;
    support.dropX = 0.37;
    support.dropZ = 0.21;
    support.localSurface = [half](double inX, double inZ)
    { return FlatRectangle(inX, inZ, half, half, 0.0); };
    return support;
}

/// A flat btHeightfieldTerrainShape of 41 × 41 float samples 0.2 m apart (8 m × 8 m). Its heights span
/// [−0.5, 0.5], so Bullet centres it on height 0: the surface lies at the transform's y.
StaticSupport StaticHeightfield()
{
    StaticSupport support;
    const int n = 41;
    const double spacing = 0.2;
    support.heights.assign(std::size_t(n * n), 0.0f);
    auto shape = std::make_unique<btHeightfieldTerrainShape>(n, n, support.heights.data(), btScalar(-0.5),
                                                             btScalar(0.5), 1, false);
    shape->setLocalScaling(btVector3(btScalar(spacing), 1, btScalar(spacing)));
    support.shape = std::move(shape);
    support.transform = PlaceRotatedY(-0.2, 0.3, 0.15, -0.4);
    support.top = 0.15;
    support.dropX = 0.05;
    support.dropZ = -0.3;
    const double half = 0.5 * spacing * (n - 1);
    support.localSurface = [half](double inX, double inZ)
    { return FlatRectangle(inX, inZ, half, half, 0.0); };
    return support;
}

/// A static 4 m × 1 m × 4 m btBoxShape, top at y = 1.
StaticSupport StaticBox()
{
    StaticSupport support;
    support.shape = std::make_unique<btBoxShape>(btVector3(2.0f, 0.5f, 2.0f));
    support.transform = PlaceRotatedY(0.5, 0.2, 0.5, 0.1);
    support.top = 1.0;
    support.dropX = 0.3;
    support.dropZ = -0.2;
    support.localSurface = [](double inX, double inZ) { return FlatRectangle(inX, inZ, 2.0, 2.0, 0.5); };
    return support;
}

/// A static btSphereShape of radius 5 m, top at y = 1; the body is dropped centred on its top, where a box
/// of half height 0.5 m < 5 m is in stable equilibrium.
StaticSupport StaticSphere()
{
    StaticSupport support;
    const double radius = 5.0;
    support.shape = std::make_unique<btSphereShape>(btScalar(radius));
    support.transform = PlaceRotatedY(0.0, 0.0, 1.0 - radius, 0.0);
    support.top = 1.0;
    support.localSurface = [radius](double inX, double inZ)
    {
        const double r2 = inX * inX + inZ * inZ;
        return r2 <= radius * radius ? std::sqrt(radius * radius - r2) : -cInfinity;
    };
    return support;
}

/// A static btCapsuleShapeX of radius 2 m and a 4 m cylinder part lying along x, top at y = 1; the body is
/// dropped on its top line.
StaticSupport StaticCapsule()
{
    StaticSupport support;
    const double radius = 2.0, halfLength = 2.0;
    support.shape = std::make_unique<btCapsuleShapeX>(btScalar(radius), btScalar(2.0 * halfLength));
    support.transform = PlaceRotatedY(0.25, 0.0, 1.0 - radius, 0.0);
    support.top = 1.0;
    support.localSurface = [radius, halfLength](double inX, double inZ)
    {
        const double along = std::max(0.0, std::abs(inX) - halfLength); // beyond the cylinder part: a cap
        const double r2 = along * along + inZ * inZ;
        return r2 <= radius * radius ? std::sqrt(radius * radius - r2) : -cInfinity;
    };
    return support;
}

/// A static standing btCylinderShape of radius 1.5 m and height 1 m, flat top at y = 1 (Bullet rounds its
/// rim by the margin, 0.04 m, far from the body).
StaticSupport StaticCylinder()
{
    StaticSupport support;
    support.shape = std::make_unique<btCylinderShape>(btVector3(1.5f, 0.5f, 1.5f));
    support.transform = PlaceRotatedY(0.0, -0.1, 0.5, 0.2);
    support.top = 1.0;
    support.dropX = -0.2;
    support.dropZ = 0.1;
    support.localSurface = [](double inX, double inZ)
    { return inX * inX + inZ * inZ <= 1.5 * 1.5 ? 0.5 : -cInfinity; };
    return support;
}

/// A static btConvexHullShape: a hexagonal frustum, top hexagon of circumradius 1.2 m at local y = 0.3,
/// bottom of 1.6 m at y = −0.3, grown by its margin, so its flat top is at 0.3 m + margin.
StaticSupport StaticConvexHull()
{
    StaticSupport support;
    auto hull = std::make_unique<btConvexHullShape>();
    const double topRadius = 1.2, bottomRadius = 1.6, halfHeight = 0.3;
    for (int k = 0; k < 6; ++k)
    {
        const double angle = k * std::numbers::pi / 3.0;
        for (const auto& [radius, y] :
             {std::pair{topRadius, halfHeight}, std::pair{bottomRadius, -halfHeight}})
            hull->addPoint(btVector3(btScalar(radius * std::cos(angle)), btScalar(y),
                                     btScalar(radius * std::sin(angle))));
    }
    const double top = halfHeight + double(hull->getMargin());
    support.shape = std::move(hull);
    support.transform = PlaceRotatedY(0.4, 0.1, 0.4, 0.0);
    support.top = 0.4 + top;
    support.dropX = 0.15;
    support.dropZ = 0.05;
    support.localSurface = [topRadius, top](double inX, double inZ)
    {
        // Inside the top hexagon: within its inradius of each edge's normal direction (angles 30° + 60° k).
        for (int k = 0; k < 6; ++k)
        {
            const double angle = std::numbers::pi / 6.0 + k * std::numbers::pi / 3.0;
            if (inX * std::cos(angle) + inZ * std::sin(angle) > topRadius * std::cos(std::numbers::pi / 6.0))
                return -cInfinity;
        }
        return top;
    };
    return support;
}

/// A static btCompoundShape of two boxes forming a floor: a lower slab and, beside it, a higher one offset
/// and rotated about y, onto whose top the body is dropped.
StaticSupport StaticCompound()
{
    StaticSupport support;
    auto compound = std::make_unique<btCompoundShape>();
    struct Child
    {
        btVector3 half;
        btTransform pose;
    };
    const std::vector<Child> children = {{btVector3(2.0f, 0.25f, 2.0f), PlaceRotatedY(0.0, -2.1, -0.1, 0.0)},
                                         {btVector3(1.5f, 0.25f, 1.5f), PlaceRotatedY(0.5, 1.6, 0.0, 0.5)}};
    for (const Child& child : children)
    {
        support.children.push_back(std::make_unique<btBoxShape>(child.half));
        compound->addChildShape(child.pose, support.children.back().get());
    }
    support.shape = std::move(compound);
    support.transform = PlaceRotatedY(-0.2, 1.0, 0.4, -1.0);
    support.top = 0.4 + 0.25;
    const btVector3 over = support.transform(children[1].pose.getOrigin());
    support.dropX = double(over.x());
    support.dropZ = double(over.z());
    support.localSurface = [children](double inX, double inZ)
    {
        double height = -cInfinity;
        for (const Child& child : children)
        {
            const btVector3 local = child.pose.invXform(btVector3(btScalar(inX), 0, btScalar(inZ)));
            height = std::max(height, FlatRectangle(double(local.x()), double(local.z()),
                                                    double(child.half.x()), double(child.half.z()),
                                                    double(child.pose.getOrigin().y() + child.half.y())));
        }
        return height;
    };
    return support;
}

/// What a drop of the deformable box onto a support ended with.
struct DropResult
{
    bool finite = true;           ///< Every state finite at every watched step.
    double comAboveTop = 0.0;     ///< Centre-of-mass height above the support's top at the end (m).
    double lowestAboveTop = 0.0;  ///< Lowest deformed vertex above the top, minimum over the watch (m).
    double clearance = cInfinity; ///< min over the watch and vertices of y − surface(x, z) (m); < 0: inside.
    double maxSpeed = 0.0;        ///< `test::MaxPointSpeed` over the watch (m/s).
    double vibrationEnergy = 0.0; ///< At the end (J).
    std::uint64_t resets = 0;     ///< Modal and transform resets of the world's guards.
};

/// Drops the 2 kg deformable box upright, its lowest proxy point `cDropHeight` above `ioSupport`'s top (the
/// support's shape moves into the world; a null shape drops it on the plane y = top); settles 4 s, watches
/// 1 s.
DropResult DropDeformableBox(StaticSupport& ioSupport, float inMargin)
{
    SampleWorld world; // destroyed before ioSupport, whose mesh, heights and children its shape refers to
    if (ioSupport.shape)
        world.AddStatic(std::move(ioSupport.shape), ioSupport.transform);
    else
        world.AddGroundPlane(ioSupport.top);
    const DeformableBox box = DroppedBox();
    BodySettings desc;
    desc.mass = 2.0;
    desc.material.margin = inMargin;
    desc.transform = UprightAt(box, ioSupport.dropX, ioSupport.top + cDropHeight, ioSupport.dropZ);
    btRigidBody* body = CreateBox(world, box, desc);
    body->setActivationState(DISABLE_DEACTIVATION); // judge jitter, not sleep
    world.Step(cSettleSteps, cStep);

    DropResult result;
    result.lowestAboveTop = cInfinity;
    const std::size_t vertexCount = box.asset->GetModel().VertexCount();
    for (int step = 0; step < cWatchSteps; ++step)
    {
        world.Step(1, cStep);
        result.finite = result.finite && IsFinite(*body);
        if (!result.finite)
            break;
        result.maxSpeed = std::max(result.maxSpeed, test::MaxPointSpeed(*body));
        for (std::size_t i = 0; i < vertexCount; ++i)
        {
            const Vec3d p = test::DeformedVertexWorld(*body, i);
            result.lowestAboveTop = std::min(result.lowestAboveTop, p.y() - ioSupport.top);
            result.clearance = std::min(result.clearance, p.y() - ioSupport.Surface(p.x(), p.z()));
        }
    }
    result.comAboveTop = double(body->getWorldTransform().getOrigin().y()) - ioSupport.top;
    result.vibrationEnergy = world.Deformables().Stats().vibrationEnergy;
    result.resets = world.Deformables().Stats().modalResets + world.Deformables().Stats().transformResets;
    return result;
}

/// The deformable box dropped onto the support made by `inMake` comes to rest on it as on a plane at the same
/// height, with and without a margin: nothing non-finite, no deformed vertex inside the support, at rest,
/// standing on it (surface contacts, the default: its lowest deformed vertex within its margin + 2 mm of the
/// support's top), its centre as high as on the plane within 1%.
void ExpectDeformableBoxRestsOn(StaticSupport (*inMake)())
{
    for (float margin : {0.0f, 0.01f})
    {
        StaticSupport support = inMake();
        StaticSupport plane;
        plane.top = support.top;
        const DropResult onPlane = DropDeformableBox(plane, margin);
        const DropResult result = DropDeformableBox(support, margin);
        SCOPED_TRACE(testing::Message()
                     << "margin " << margin << ": clearance " << result.clearance << " lowest above top "
                     << result.lowestAboveTop << " centre above top " << result.comAboveTop << " (plane "
                     << onPlane.comAboveTop << ") speed " << result.maxSpeed);
        ASSERT_TRUE(result.finite);
        EXPECT_TRUE(std::isfinite(result.vibrationEnergy));
        EXPECT_EQ(result.resets, 0u);
        EXPECT_GE(result.clearance, -(double(margin) + cTolerance));
        EXPECT_LT(result.lowestAboveTop, double(margin) + cSurfaceGap);
        EXPECT_LT(result.maxSpeed, cRestSpeed);
        EXPECT_NEAR(result.comAboveTop, onPlane.comAboveTop, 0.01 * onPlane.comAboveTop);
    }
}

TEST(WorldPrimitiveDrop, DeformableBoxRestsOnTriangleMesh)
{
    ExpectDeformableBoxRestsOn(StaticTriangleMesh);
}

TEST(WorldPrimitiveDrop, DeformableBoxRestsOnHeightfield)
{
    ExpectDeformableBoxRestsOn(StaticHeightfield);
}

TEST(WorldPrimitiveDrop, DeformableBoxRestsOnBox)
{
    ExpectDeformableBoxRestsOn(StaticBox);
}

TEST(WorldPrimitiveDrop, DeformableBoxRestsOnSphere)
{
    ExpectDeformableBoxRestsOn(StaticSphere);
}

// With sleeping on (Bullet's default thresholds), the box on the sphere stops: Bullet puts it to sleep within
// 4 s of the drop.
TEST(WorldPrimitiveDrop, DeformableBoxOnSphereFallsAsleep)
{
    StaticSupport support = StaticSphere();
    SampleWorld world;
    world.AddStatic(std::move(support.shape), support.transform);
    const DeformableBox box = DroppedBox();
    BodySettings desc;
    desc.mass = 2.0;
    desc.transform = UprightAt(box, support.dropX, support.top + cDropHeight, support.dropZ);
    btRigidBody* body = CreateBox(world, box, desc);
    int asleepAt = -1;
    for (int step = 0; step < cSettleSteps && asleepAt < 0; ++step)
    {
        world.Step(1, cStep);
        if (body->getActivationState() == ISLAND_SLEEPING)
            asleepAt = step;
    }
    EXPECT_GE(asleepAt, 0);
    // Asleep on the sphere, not before landing (Bullet needs 2 s below its thresholds) nor through it.
    EXPECT_GT(asleepAt, 120);
    EXPECT_GT(double(body->getWorldTransform().getOrigin().y()), support.top);
}

TEST(WorldPrimitiveDrop, DeformableBoxRestsOnCapsule)
{
    ExpectDeformableBoxRestsOn(StaticCapsule);
}

TEST(WorldPrimitiveDrop, DeformableBoxRestsOnCylinder)
{
    ExpectDeformableBoxRestsOn(StaticCylinder);
}

TEST(WorldPrimitiveDrop, DeformableBoxRestsOnConvexHull)
{
    ExpectDeformableBoxRestsOn(StaticConvexHull);
}

TEST(WorldPrimitiveDrop, DeformableBoxRestsOnCompound)
{
    ExpectDeformableBoxRestsOn(StaticCompound);
}

// --- 2. Dynamic primitives dropped onto a deformable box ---------------------------------------------------

/// A dynamic primitive and what its shape refers to, with its initial orientation.
struct Primitive
{
    std::unique_ptr<btCollisionShape> shape;
    std::vector<std::unique_ptr<btCollisionShape>> children; ///< A compound's children.
    btQuaternion rotation = btQuaternion::getIdentity();
    btScalar rollingFriction = 0; ///< Bullet's rolling friction of the primitive.
};

/// Points of the collision surface of `inShape` placed by `inTransform` (margin included), sampled over its
/// lower part: the supporting vertices for 17 directions within 60° of straight down (per child of a
/// compound). A sharp box corner is a support point though Bullet rounds it by the margin: it lies outside
/// the collision surface, never inside, so it cannot hide a penetration.
void LowerSurfacePoints(const btCollisionShape& inShape, const btTransform& inTransform,
                        std::vector<btVector3>& ioPoints)
{
    if (inShape.isCompound())
    {
        const auto& compound = static_cast<const btCompoundShape&>(inShape);
        for (int i = 0; i < compound.getNumChildShapes(); ++i)
            LowerSurfacePoints(*compound.getChildShape(i), inTransform * compound.getChildTransform(i),
                               ioPoints);
        return;
    }
    const auto& convex = static_cast<const btConvexShape&>(inShape);
    for (double tilt : {0.0, std::numbers::pi / 6.0, std::numbers::pi / 3.0})
        for (int k = 0; k < (tilt == 0.0 ? 1 : 8); ++k)
        {
            const double azimuth = k * std::numbers::pi / 4.0;
            const btVector3 down(btScalar(std::sin(tilt) * std::cos(azimuth)), btScalar(-std::cos(tilt)),
                                 btScalar(std::sin(tilt) * std::sin(azimuth)));
            const btVector3 local = convex.localGetSupportingVertex(down * inTransform.getBasis());
            ioPoints.push_back(inTransform(local));
        }
}

/// The highest upward-facing deformed triangle of the body over world (x, z), by brute force over every
/// triangle (barycentric interpolation of its deformed vertices `inVertices`); −∞ if none is over it.
double DeformedSurfaceBelow(const Model& inModel, const std::vector<Vec3d>& inVertices, double inX,
                            double inZ)
{
    double height = -cInfinity;
    for (const Triangle& triangle : inModel.Triangles())
    {
        const Vec3d& a = inVertices[triangle[0]];
        const Vec3d& b = inVertices[triangle[1]];
        const Vec3d& c = inVertices[triangle[2]];
        // Twice the signed area in xz seen from above (> 0: the triangle faces up).
        const double area = (b.z() - a.z()) * (c.x() - a.x()) - (b.x() - a.x()) * (c.z() - a.z());
        if (area <= 0.0)
            continue;
        const double wB = ((inZ - a.z()) * (c.x() - a.x()) - (inX - a.x()) * (c.z() - a.z())) / area;
        const double wC = ((b.z() - a.z()) * (inX - a.x()) - (b.x() - a.x()) * (inZ - a.z())) / area;
        if (wB < 0.0 || wC < 0.0 || wB + wC > 1.0)
            continue;
        height = std::max(height, a.y() + wB * (b.y() - a.y()) + wC * (c.y() - a.y()));
    }
    return height;
}

/// What a primitive dropped onto the deformable box ended with.
struct PrimitiveDropResult
{
    bool finite = true;                ///< Every state finite at every step.
    double worstClearance = cInfinity; ///< min over every step and surface point of y − surface below (m).
    double restGap = 0.0;  ///< The lowest surface point's height above the surface below it, at the end.
    double maxSpeed = 0.0; ///< The primitive's |v| + |ω|·reach over the last second (m/s).
    double deformableSpeed = 0.0; ///< `test::MaxPointSpeed` of the deformable over the last second (m/s).
    double vibrationEnergy = 0.0; ///< At the end (J).
    std::uint64_t resets = 0;     ///< Modal and transform resets of the world's guards.
};

/// Drops `ioPrimitive` (1 kg; its shape moves into the world) from `cDropHeight` above the deformable box's
/// proxies onto its top face, off centre; the box stands on the ground plane: a static body (mass 0, q stays
/// 0) or a 20 kg one, settled for 1 s first. Runs 4 s, then watches 1 s.
PrimitiveDropResult DropOnDeformableBox(Primitive& ioPrimitive, bool inStaticDeformable)
{
    SampleWorld world;
    world.AddGroundPlane();
    const DeformableBox supporting = SupportingBox();
    const Model& model = supporting.asset->GetModel();
    BodySettings desc;
    desc.mass = inStaticDeformable ? 0.0 : 20.0;
    desc.transform = UprightAt(supporting, 0.0, 0.001, 0.0);
    btRigidBody* box = CreateBox(world, supporting, desc);
    if (!inStaticDeformable)
    {
        box->setActivationState(DISABLE_DEACTIVATION);
        world.Step(60, cStep);
    }

    std::vector<btVector3> points;
    LowerSurfacePoints(*ioPrimitive.shape, btTransform(ioPrimitive.rotation), points);
    btScalar lowest = BT_LARGE_FLOAT;
    for (const btVector3& p : points)
        lowest = std::min(lowest, p.y());
    const btScalar startY = btScalar(HighestProxyWorldY(*box) + cDropHeight) - lowest;
    const btCollisionShape& shape = *ioPrimitive.shape;
    btVector3 center;
    btScalar radius;
    shape.getBoundingSphere(center, radius);
    const double reach = double(center.length() + radius);
    // Off the face's centre, so that nothing is symmetric about the drop.
    btRigidBody* primitive =
        world.AddRigid(std::move(ioPrimitive.shape),
                       btTransform(ioPrimitive.rotation, btVector3(0.08f, startY, -0.06f)), 1.0);
    primitive->setRollingFriction(ioPrimitive.rollingFriction);
    primitive->setActivationState(DISABLE_DEACTIVATION);

    PrimitiveDropResult result;
    std::vector<Vec3d> vertices(model.VertexCount());
    for (int step = 0; step < cSettleSteps + cWatchSteps; ++step)
    {
        world.Step(1, cStep);
        result.finite = result.finite && IsFinite(*box) && IsFinite(*primitive);
        if (!result.finite)
            return result;
        for (std::size_t i = 0; i < vertices.size(); ++i)
            vertices[i] = test::DeformedVertexWorld(*box, i);
        points.clear();
        LowerSurfacePoints(shape, primitive->getWorldTransform(), points);
        double lowestGap = cInfinity;
        btScalar lowestY = BT_LARGE_FLOAT;
        for (const btVector3& p : points)
        {
            const double clearance =
                double(p.y()) - DeformedSurfaceBelow(model, vertices, double(p.x()), double(p.z()));
            result.worstClearance = std::min(result.worstClearance, clearance);
            if (p.y() < lowestY)
            {
                lowestY = p.y();
                lowestGap = clearance;
            }
        }
        if (step < cSettleSteps)
            continue;
        result.restGap = lowestGap;
        result.maxSpeed =
            std::max(result.maxSpeed, double(primitive->getLinearVelocity().length()) +
                                          double(primitive->getAngularVelocity().length()) * reach);
        result.deformableSpeed = std::max(result.deformableSpeed, test::MaxPointSpeed(*box));
    }
    result.vibrationEnergy = world.Deformables().Stats().vibrationEnergy;
    result.resets = world.Deformables().Stats().modalResets + world.Deformables().Stats().transformResets;
    return result;
}

/// The primitive made by `inMake`, dropped onto the deformable box (static or 20 kg), comes to rest on its
/// top face: nothing non-finite, never below the face, at rest, standing on it (within 2 mm of its deformed
/// surface: surface contacts, the default).
void ExpectRestsOnDeformableBox(Primitive (*inMake)(), bool inStaticDeformable)
{
    Primitive primitive = inMake();
    const PrimitiveDropResult result = DropOnDeformableBox(primitive, inStaticDeformable);
    SCOPED_TRACE(testing::Message() << "worst clearance " << result.worstClearance << " gap at rest "
                                    << result.restGap << " speed " << result.maxSpeed << " deformable speed "
                                    << result.deformableSpeed);
    ASSERT_TRUE(result.finite);
    EXPECT_TRUE(std::isfinite(result.vibrationEnergy));
    EXPECT_EQ(result.resets, 0u);
    // At every step, landing included: the face is under its proxies, which stop the primitive first.
    EXPECT_GE(result.worstClearance, -cTolerance);
    const DeformableBox supporting = SupportingBox();
    EXPECT_LT(result.restGap, cSurfaceGap); // the box's margin is 0; the primitive's is in its points
    EXPECT_LT(result.maxSpeed, inStaticDeformable ? cRestSpeed : cCreepSpeed);
    EXPECT_LT(result.deformableSpeed, cRestSpeed);
}

Primitive MakeSphere()
{
    Primitive primitive;
    primitive.shape = std::make_unique<btSphereShape>(btScalar(0.2));
    return primitive;
}

Primitive MakeBox()
{
    Primitive primitive;
    primitive.shape = std::make_unique<btBoxShape>(btVector3(0.2f, 0.15f, 0.25f));
    primitive.rotation = btQuaternion(btVector3(0, 1, 0), btScalar(0.4));
    return primitive;
}

/// Lying along x (rotated about y): a capsule standing on a cap would topple. Lying, it is neutral about its
/// axis, and Bullet's own contact lets it roll away even on a static btBoxShape (it reached 2.9 m/s within
/// 5 s from 12 of 15 drop points); rolling friction 0.01 holds it there (0.3 mm/s at most), so it gets that.
Primitive MakeCapsule()
{
    Primitive primitive;
    primitive.shape = std::make_unique<btCapsuleShapeX>(btScalar(0.12), btScalar(0.4));
    primitive.rotation = btQuaternion(btVector3(0, 1, 0), btScalar(0.3));
    primitive.rollingFriction = 0.01f;
    return primitive;
}

/// Standing on its base (btCylinderShape's axis is y).
Primitive MakeCylinder()
{
    Primitive primitive;
    primitive.shape = std::make_unique<btCylinderShape>(btVector3(0.2f, 0.15f, 0.2f));
    return primitive;
}

/// btConeShape's axis is y with its apex at +height/2, so unrotated it stands on its base (on its apex it
/// would topple).
Primitive MakeCone()
{
    Primitive primitive;
    primitive.shape = std::make_unique<btConeShape>(btScalar(0.25), btScalar(0.3));
    return primitive;
}

/// An irregular flat-bottomed hull: a pentagon at y = −0.1 under a smaller, shifted triangle at y = 0.12.
Primitive MakeConvexHull()
{
    Primitive primitive;
    auto hull = std::make_unique<btConvexHullShape>();
    for (int k = 0; k < 5; ++k)
    {
        const double angle = 2.0 * std::numbers::pi * k / 5.0;
        hull->addPoint(btVector3(btScalar(0.25 * std::cos(angle)), -0.1f, btScalar(0.25 * std::sin(angle))));
    }
    hull->addPoint(btVector3(0.1f, 0.12f, 0.0f));
    hull->addPoint(btVector3(-0.05f, 0.12f, 0.08f));
    hull->addPoint(btVector3(-0.05f, 0.12f, -0.08f));
    primitive.shape = std::move(hull);
    primitive.rotation = btQuaternion(btVector3(0, 1, 0), btScalar(0.7));
    return primitive;
}

/// Two boxes: a slab and a smaller box standing on it, offset and rotated about y.
Primitive MakeCompound()
{
    Primitive primitive;
    auto compound = std::make_unique<btCompoundShape>();
    primitive.children.push_back(std::make_unique<btBoxShape>(btVector3(0.3f, 0.05f, 0.2f)));
    primitive.children.push_back(std::make_unique<btBoxShape>(btVector3(0.1f, 0.1f, 0.1f)));
    compound->addChildShape(PlaceRotatedY(0.0, 0.0, -0.05, 0.0), primitive.children[0].get());
    compound->addChildShape(PlaceRotatedY(0.5, 0.1, 0.1, 0.0), primitive.children[1].get());
    primitive.shape = std::move(compound);
    primitive.rotation = btQuaternion(btVector3(0, 1, 0), btScalar(-0.3));
    return primitive;
}

TEST(WorldPrimitiveDrop, SphereRestsOnStaticDeformableBox)
{
    ExpectRestsOnDeformableBox(MakeSphere, true);
}

TEST(WorldPrimitiveDrop, SphereRestsOnDynamicDeformableBox)
{
    ExpectRestsOnDeformableBox(MakeSphere, false);
}

TEST(WorldPrimitiveDrop, BoxRestsOnStaticDeformableBox)
{
    ExpectRestsOnDeformableBox(MakeBox, true);
}

TEST(WorldPrimitiveDrop, BoxRestsOnDynamicDeformableBox)
{
    ExpectRestsOnDeformableBox(MakeBox, false);
}

TEST(WorldPrimitiveDrop, CapsuleRestsOnStaticDeformableBox)
{
    ExpectRestsOnDeformableBox(MakeCapsule, true);
}

TEST(WorldPrimitiveDrop, CapsuleRestsOnDynamicDeformableBox)
{
    ExpectRestsOnDeformableBox(MakeCapsule, false);
}

TEST(WorldPrimitiveDrop, CylinderRestsOnStaticDeformableBox)
{
    ExpectRestsOnDeformableBox(MakeCylinder, true);
}

TEST(WorldPrimitiveDrop, CylinderRestsOnDynamicDeformableBox)
{
    ExpectRestsOnDeformableBox(MakeCylinder, false);
}

TEST(WorldPrimitiveDrop, ConeRestsOnStaticDeformableBox)
{
    ExpectRestsOnDeformableBox(MakeCone, true);
}

TEST(WorldPrimitiveDrop, ConeRestsOnDynamicDeformableBox)
{
    ExpectRestsOnDeformableBox(MakeCone, false);
}

TEST(WorldPrimitiveDrop, ConvexHullRestsOnStaticDeformableBox)
{
    ExpectRestsOnDeformableBox(MakeConvexHull, true);
}

TEST(WorldPrimitiveDrop, ConvexHullRestsOnDynamicDeformableBox)
{
    ExpectRestsOnDeformableBox(MakeConvexHull, false);
}

TEST(WorldPrimitiveDrop, CompoundRestsOnStaticDeformableBox)
{
    ExpectRestsOnDeformableBox(MakeCompound, true);
}

TEST(WorldPrimitiveDrop, CompoundRestsOnDynamicDeformableBox)
{
    ExpectRestsOnDeformableBox(MakeCompound, false);
}

// --- 3. Balls on a vibrating, finely meshed face ------------------------------------------------------------

/// Balls (5 cm) resting on the top face of a static deformable box whose q is prescribed (every field
/// vibrating, 5 mm at most, as `bdt-bench scaling` drives it), its contacts at level 12: proxies of about 5
/// triangles, 5 cm across. Each rise of the face presses the balls a few millimetres in, and the patches round
/// the one a ball touches then hold vertices inside it that face away from its centre. Those patches' proxy
/// contacts (normals from the proxies' centres, tilted up to 90°) must not be kept: they kick the balls
/// sideways, off the box. The balls stay within 8 cm of where they were put (the vibrating face tilts by a
/// few percent, and they roll a little), and every contact they hold is a surface contact.
TEST(WorldPrimitiveDrop, BallsStayOnAVibratingFinelyMeshedFace)
{
    SampleWorld world;
    world.AddGroundPlane();
    const DeformableBox supporting{test::ShapeAsset("box", 20000, 10), 12};
    const Model& model = supporting.asset->GetModel();
    BodySettings desc;
    desc.mass = 0.0;
    desc.transform = UprightAt(supporting, 0.0, 0.001, 0.0);
    btRigidBody* box = CreateBox(world, supporting, desc);
    DeformableShape& shape = *World::Shape(box);

    // Each field's scale: 5 mm over its largest vertex displacement.
    std::vector<double> scale(model.ModeCount(), 0.0);
    for (std::uint32_t j = 0; j < model.ModeCount(); ++j)
    {
        double largest = 0.0;
        for (std::size_t i = 0; i < model.VertexCount(); ++i)
            largest = std::max(largest, double(model.BasisVector(i, j).norm()));
        scale[j] = largest > 0.0 ? 0.005 / largest : 0.0;
    }
    const auto prescribe = [&](int inStep)
    {
        std::vector<float> q(model.ModeCount());
        for (std::size_t j = 0; j < q.size(); ++j)
            q[j] = float(scale[j] * std::sin(2.0 * std::numbers::pi * (1.3 + 0.37 * double(j)) * inStep * cStep +
                                             double(j)));
        ASSERT_TRUE(shape.SetQ(q));
    };
    prescribe(0);

    // 3 × 3 balls over the top face, resting on it (the face's deformed height under each, plus the radius).
    constexpr double cRadius = 0.05;
    std::vector<Vec3d> vertices(model.VertexCount());
    for (std::size_t i = 0; i < vertices.size(); ++i)
        vertices[i] = test::DeformedVertexWorld(*box, i);
    std::vector<btRigidBody*> balls;
    std::vector<Vec3d> starts;
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k)
        {
            const double x = -0.3 + 0.3 * i, z = -0.3 + 0.3 * k;
            const double top = DeformedSurfaceBelow(model, vertices, x, z);
            ASSERT_TRUE(std::isfinite(top));
            const Vec3d start(x, top + cRadius + double(shape.getMargin()), z);
            starts.push_back(start);
            balls.push_back(world.AddRigid(std::make_unique<btSphereShape>(btScalar(cRadius)),
                                           btTransform(btQuaternion::getIdentity(), ToBtVector(start)), 0.2));
        }

    int surfacePoints = 0;
    for (int step = 1; step <= 120; ++step)
    {
        prescribe(step);
        world.Step(1, cStep);
        btDispatcher& dispatcher = *world.Dynamics().getDispatcher();
        for (int m = 0; m < dispatcher.getNumManifolds(); ++m)
        {
            const btPersistentManifold& manifold = *dispatcher.getManifoldByIndexInternal(m);
            if (manifold.getBody0() != box && manifold.getBody1() != box)
                continue;
            if (manifold.getBody0()->getCollisionShape()->getShapeType() != SPHERE_SHAPE_PROXYTYPE &&
                manifold.getBody1()->getCollisionShape()->getShapeType() != SPHERE_SHAPE_PROXYTYPE)
                continue;
            const bool boxFirst = manifold.getBody0() == box;
            for (int c = 0; c < manifold.getNumContacts(); ++c)
            {
                const btManifoldPoint& point = manifold.getContactPoint(c);
                EXPECT_GE(boxFirst ? point.m_index0 : point.m_index1, 0)
                    << "step " << step << ": a ball holds a proxy contact, normal ("
                    << point.m_normalWorldOnB.x() << ", " << point.m_normalWorldOnB.y() << ", "
                    << point.m_normalWorldOnB.z() << ")";
                ++surfacePoints;
            }
        }
    }
    EXPECT_GT(surfacePoints, 9 * 60); // the balls did rest on the face
    for (std::size_t b = 0; b < balls.size(); ++b)
    {
        const Vec3d at = ToVec3d(balls[b]->getWorldTransform().getOrigin());
        const double drift = std::hypot(at.x() - starts[b].x(), at.z() - starts[b].z());
        EXPECT_LT(drift, 0.08) << "ball " << b;
        EXPECT_GT(at.y(), 0.95) << "ball " << b << " left the face";
    }
}

// A chair pushed at 1.5 m/s into a thin static wall (a 10 cm box) for 2 s, in several orientations, stays out
// of it. The contact pieces of its parts that reach into the wall through a side of theirs that lies inside the
// chair (a seat's top beside the wall) make no contact: the pieces whose real faces it crossed push it back,
// and a push along the seat top's normal would take the chair the long way out, under the wall.
TEST(WorldPrimitiveDrop, AChairPushedIntoAThinWallStaysOut)
{
    const auto chair = test::ShapeAsset("chair", 3000, 10);
    const Model& model = chair->GetModel();
    std::mt19937 random(7);
    for (int orientation = 0; orientation < 4; ++orientation)
    {
        SampleWorld world;
        world.AddGroundPlane();
        constexpr btScalar wallFace = 2.0f; // the wall's face towards the chair, z = 2 m
        world.AddStatic(std::make_unique<btBoxShape>(btVector3(4, 2, 0.05f)),
                        btTransform(btQuaternion::getIdentity(), btVector3(0, 2, wallFace + 0.05f)));
        BodySettings desc;
        desc.mass = 4.0;
        desc.proxyLevel = 8;
        desc.transform = btTransform(test::RandomQuaternion(random), btVector3(0, 0.8f, 1.2f));
        btRigidBody* body = world.Deformables().CreateBody(chair, desc);
        double deepest = 0.0; // m, of any deformed vertex into the wall
        for (int step = 0; step < 150; ++step)
        {
            if (step < 120)
            {
                btVector3 velocity = body->getLinearVelocity();
                velocity.setZ(1.5f);
                body->setLinearVelocity(velocity);
                body->activate(true);
            }
            world.Step(1, cStep);
            for (std::size_t v = 0; v < model.VertexCount(); ++v)
                deepest = std::max(deepest, test::DeformedVertexWorld(*body, v).z() - double(wallFace));
        }
        EXPECT_LT(deepest, 0.01) << "orientation " << orientation;
        EXPECT_LT(body->getWorldTransform().getOrigin().z(), wallFace) << "orientation " << orientation;
    }
}

} // namespace
} // namespace bdt
