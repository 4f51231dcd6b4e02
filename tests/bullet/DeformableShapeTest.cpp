// DeformableShape against brute force: bounds, triangle queries, Bullet's ray and sweep tests through
// processAllTriangles, inertia, scaling, settings and the impulse path into the modal dynamics (the predicted
// step response and the modal mobility: DeformableShapeResponseTest.cpp).

#include "bullet/ShapeSolver.h"
#include "support/BulletScenes.h"
#include "support/QueryOracles.h"
#include "support/TestModels.h"

#include "core/geometry/TriangleGeometry.h"

#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/CollisionConfiguration.h>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/base/Error.h>
#include <bdt/core/model/ProceduralShapes.h>

#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletCollision/CollisionDispatch/btCollisionDispatcher.h>
#include <BulletCollision/CollisionDispatch/btCollisionWorld.h>
#include <BulletCollision/CollisionDispatch/btDefaultCollisionConfiguration.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/CollisionShapes/btTriangleCallback.h>
#include <LinearMath/btIDebugDraw.h>

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <array>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace bdt
{
namespace
{

using namespace test;

// ---- Fixtures and brute-force references ----

std::shared_ptr<const DeformableAsset> MakeAsset(const char* inShape, std::uint32_t inTriangles = 1500,
                                                 std::uint32_t inModes = 6)
{
    return DeformableAsset::Create(ShapeTree(inShape, inTriangles, inModes));
}

btTransform RandomTransform(std::mt19937& ioRandom, double inTranslation)
{
    return btTransform(RandomQuaternion(ioRandom), ToBtVector(RandomPoint(ioRandom, inTranslation)));
}

double ShapeScale(const DeformableShape& inShape) { return inShape.getLocalScaling().x(); }

// Model size ("radius") of the shape's model, in model units.
double Size(const DeformableShape& inShape) { return ModelRadius(inShape.Asset().GetModel()); }

// Every deformed vertex p + U q in the shape's local frame: s · ToPrincipal(p + U q), double.
std::vector<Vec3d> LocalVertices(const DeformableShape& inShape)
{
    const Model& model = inShape.Asset().GetModel();
    const Pose principal = inShape.Asset().Mass().ToPrincipal();
    const double scale = ShapeScale(inShape);
    std::vector<Vec3d> vertices;
    for (std::size_t i = 0; i < model.VertexCount(); ++i)
        vertices.push_back(scale * principal.Apply(model.DeformedPosition(i, inShape.State().Q())));
    return vertices;
}

// The deformed triangles (tree order) placed by `inTransform`, mapped with Bullet's basis as it is.
std::vector<Tri> PlacedTriangles(const DeformableShape& inShape, const btTransform& inTransform)
{
    const Mat3d basis = ToMat3d(inTransform.getBasis());
    const Vec3d origin = ToVec3d(inTransform.getOrigin());
    std::vector<Vec3d> vertices = LocalVertices(inShape);
    for (Vec3d& vertex : vertices)
        vertex = basis * vertex + origin;
    std::vector<Tri> triangles;
    for (const Triangle& t : inShape.Asset().GetModel().Triangles())
        triangles.push_back({vertices[t[0]], vertices[t[1]], vertices[t[2]]});
    return triangles;
}

std::vector<float> ScaledQ(const DeformableShape& inShape, double inAmplitude, std::mt19937& ioRandom)
{
    return RandomQ(inShape.State().ModeCount(), inAmplitude * Size(inShape), ioRandom);
}

// A collision world holding just the shape's object: one object, so no pairs and no narrowphase. Bullet's
// own configuration unless `inRegistered`, which gives the dispatcher the BD-Tree algorithms (what
// contactTest needs: without them Bullet 3.24 would take the shape for a btSdfCollisionShape).
struct SingleObjectWorld
{
    std::unique_ptr<btDefaultCollisionConfiguration> configuration;
    btCollisionDispatcher dispatcher;
    btDbvtBroadphase broadphase;
    btCollisionWorld world;
    btCollisionObject object;

    SingleObjectWorld(DeformableShape& ioShape, const btTransform& inTransform, bool inRegistered = false)
        : configuration(inRegistered ? std::make_unique<CollisionConfiguration>()
                                     : std::make_unique<btDefaultCollisionConfiguration>()),
          dispatcher(configuration.get()), world(&dispatcher, &broadphase, configuration.get())
    {
        object.setCollisionShape(&ioShape);
        object.setWorldTransform(inTransform);
        world.addCollisionObject(&object);
    }
    ~SingleObjectWorld() { world.removeCollisionObject(&object); }
};

// Records what processAllTriangles reports.
struct RecordingCallback : btTriangleCallback
{
    std::map<int, int> counts;
    std::map<int, Tri> vertices;
    void processTriangle(btVector3* inTriangle, int inPartId, int inTriangleIndex) override
    {
        EXPECT_EQ(inPartId, 0);
        ++counts[inTriangleIndex];
        vertices[inTriangleIndex] = {ToVec3d(inTriangle[0]), ToVec3d(inTriangle[1]), ToVec3d(inTriangle[2])};
    }
};

// Barycentric coordinates of the point of the triangle's plane nearest `inPoint`, and that point's distance.
double BarycentricMin(const Vec3d& inPoint, const Tri& inT, double& outPlaneDistance)
{
    const Vec3d e1 = inT[1] - inT[0];
    const Vec3d e2 = inT[2] - inT[0];
    const Vec3d normal = e1.cross(e2);
    const double area2 = normal.squaredNorm();
    const Vec3d p = inPoint - inT[0];
    outPlaneDistance = std::abs(p.dot(normal)) / std::sqrt(area2);
    const double v = p.cross(e2).dot(normal) / area2;
    const double w = e1.cross(p).dot(normal) / area2;
    return std::min({1.0 - v - w, v, w});
}

// First fraction in [0, 1] at which a sphere of radius `inRadius` moving from `inFrom` to `inTo` touches the
// closed triangle. The distance from a moving point to a convex set is convex in time, so it decreases up
// to the segment's closest point: bisection there.
std::optional<double> SphereSweepTriangle(const Vec3d& inFrom, const Vec3d& inTo, double inRadius,
                                          const Tri& inT)
{
    const Vec3d triangle[3] = {inT[0], inT[1], inT[2]};
    Vec3d onSegment, onTriangle;
    if (ClosestPointsSegmentTriangle(inFrom, inTo, triangle, onSegment, onTriangle) > inRadius)
        return std::nullopt;
    const Vec3d motion = inTo - inFrom;
    auto distance = [&](double inFraction)
    {
        const Vec3d center = inFrom + inFraction * motion;
        return (center - ClosestPointOnTriangle(center, triangle)).norm();
    };
    double low = 0.0;
    double high = std::clamp((onSegment - inFrom).dot(motion) / motion.squaredNorm(), 0.0, 1.0);
    if (distance(low) <= inRadius)
        return 0.0;
    for (int i = 0; i < 80; ++i)
    {
        const double middle = 0.5 * (low + high);
        (distance(middle) <= inRadius ? high : low) = middle;
    }
    return high;
}

// ---- Identity and construction ----

struct OtherConcaveShape : btConcaveShape
{
    btVector3 scaling{1, 1, 1};
    OtherConcaveShape() { m_shapeType = CUSTOM_CONCAVE_SHAPE_TYPE; }
    void processAllTriangles(btTriangleCallback*, const btVector3&, const btVector3&) const override {}
    void getAabb(const btTransform&, btVector3& outMin, btVector3& outMax) const override
    {
        outMin.setZero();
        outMax.setZero();
    }
    void setLocalScaling(const btVector3& inScaling) override { scaling = inScaling; }
    const btVector3& getLocalScaling() const override { return scaling; }
    void calculateLocalInertia(btScalar, btVector3& outInertia) const override { outInertia.setZero(); }
    const char* getName() const override { return "SomethingElse"; }
};

TEST(DeformableShape, IsACustomConcaveShapeThatAsDeformableRecognises)
{
    DeformableShape shape(MakeAsset("sphere", 300, 3));
    EXPECT_EQ(shape.getShapeType(), CUSTOM_CONCAVE_SHAPE_TYPE);
    EXPECT_TRUE(shape.isConcave());
    EXPECT_FALSE(shape.isConvex());
    btCollisionShape* base = &shape;
    EXPECT_EQ(AsDeformable(base), &shape);
    EXPECT_EQ(AsDeformable(static_cast<const btCollisionShape*>(base)), &shape);

    btSphereShape sphere(1);
    OtherConcaveShape other;
    EXPECT_EQ(AsDeformable(&sphere), nullptr);
    EXPECT_EQ(AsDeformable(&other), nullptr);
    EXPECT_EQ(AsDeformable(static_cast<btCollisionShape*>(nullptr)), nullptr);
}

TEST(DeformableShape, ConstructorRejectsBadInput)
{
    const auto asset = MakeAsset("sphere", 300, 3);
    EXPECT_THROW(DeformableShape(nullptr), Error);
    for (const double mass :
         {0.0, -1.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()})
    {
        DeformableShapeSettings settings;
        settings.mass = mass;
        EXPECT_THROW(DeformableShape(asset, settings), Error) << mass;
    }
    DeformableShapeSettings settings;
    settings.maxManifoldsPerPair = 0;
    EXPECT_THROW(DeformableShape(asset, settings), Error);
    for (const double skin : {-0.01, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()})
    {
        settings = {};
        settings.pairCacheSkin = skin;
        EXPECT_THROW(DeformableShape(asset, settings), Error) << skin;
    }
    settings = {};
    settings.modal.stiffnessScale = 0.0f;
    EXPECT_THROW(DeformableShape(asset, settings), Error);
}

// ---- Placement ----

TEST(DeformableShape, RestToWorldIsTheRotationOfBodyBitForBit)
{
    std::mt19937 random(12);
    DeformableShape shape(TurnedShapeAsset("chair", 800, 4));
    for (int trial = 0; trial < 50; ++trial)
    {
        btTransform transform = RandomTransform(random, 3.0);
        // Bullet's bases are orthonormal to float precision only: a slightly stretched one too.
        if (trial % 2 == 1)
            transform.setBasis(transform.getBasis().scaled(btVector3(1.0f + 3e-7f, 1.0f, 1.0f - 2e-7f)));
        const Mat3d rotation = shape.RestToWorld(transform);
        EXPECT_EQ(rotation, shape.QueryView(transform).pose.rotation) << trial;
        EXPECT_TRUE((rotation * rotation.transpose()).isIdentity(1e-12)) << trial;
        EXPECT_NEAR(rotation.determinant(), 1.0, 1e-12) << trial;
    }
}

// ---- Bounds ----

TEST(DeformableShape, AabbContainsEveryDeformedVertexForAnyQAndTransform)
{
    std::mt19937 random(11);
    for (const char* name : {"chair", "turned chair", "torus", "curtain"})
    {
        const auto asset = std::string(name) == "turned chair" ? TurnedShapeAsset("chair") : MakeAsset(name);
        for (int trial = 0; trial < 24; ++trial)
        {
            DeformableShapeSettings settings;
            settings.temporalCoherence = trial % 2 == 1;
            DeformableShape shape(asset, settings);
            shape.setLocalScaling(btVector3(1, 1, 1) * btScalar(Uniform(random, 0.2, 4.0)));
            shape.setMargin(btScalar(trial % 3 == 0 ? 0.0 : Uniform(random, 0.0, 0.05)));
            const double amplitude = std::array{1e-3, 0.05, 0.3}[trial % 3];
            // Two steps, so temporal coherence reuses spheres computed at the first q.
            ASSERT_TRUE(shape.State().SetQ(ScaledQ(shape, amplitude, random)));
            ASSERT_TRUE(shape.State().SetQ(ScaledQ(shape, amplitude, random)));
            const btTransform transform = RandomTransform(random, 20.0);

            btVector3 low, high;
            shape.getAabb(transform, low, high);
            const Vec3d boxMin = ToVec3d(low), boxMax = ToVec3d(high);
            const Mat3d basis = ToMat3d(transform.getBasis());
            const Vec3d origin = ToVec3d(transform.getOrigin());
            const DeformedBody body = shape.QueryView(transform);
            const Model& model = shape.Asset().GetModel();
            Aabb truth;
            const std::vector<Vec3d> local = LocalVertices(shape);
            for (std::size_t i = 0; i < local.size(); ++i)
            {
                const Vec3d placed = basis * local[i] + origin;
                const Vec3d posed =
                    body.pose.Apply(body.scale * model.DeformedPosition(i, shape.State().Q()));
                truth.extend(placed);
                for (const Vec3d& vertex : {placed, posed})
                    ASSERT_TRUE((vertex.array() >= boxMin.array()).all() &&
                                (vertex.array() <= boxMax.array()).all())
                        << name << " trial " << trial << " vertex " << i;
            }
            if (amplitude < 0.01)
            {
                const double extent = (boxMax - boxMin).maxCoeff() - 2.0 * shape.getMargin();
                EXPECT_LE(extent, 3.0 * truth.sizes().maxCoeff()) << name << " trial " << trial;
            }
        }
    }
}

// ---- processAllTriangles ----

TEST(DeformableShape, ProcessAllTrianglesReportsExactlyTheTrianglesWhoseBoxOverlaps)
{
    std::mt19937 random(12);
    for (const char* name : {"turned chair", "torus"})
    {
        DeformableShape shape(std::string(name) == "torus" ? MakeAsset(name, 2000, 6)
                                                           : TurnedShapeAsset("chair", 2000, 6));
        shape.setLocalScaling(btVector3(1, 1, 1) * btScalar(1.7));
        ASSERT_TRUE(shape.State().SetQ(ScaledQ(shape, 0.1, random)));
        const std::vector<Tri> triangles = PlacedTriangles(shape, btTransform::getIdentity());
        const double size = Size(shape) * ShapeScale(shape);
        const double band = 1e-9 * size; // boxes this close to touching may go either way
        std::uint64_t reported = 0;
        for (int query = 0; query < 200; ++query)
        {
            const Tri& near = triangles[random() % triangles.size()];
            const Vec3d center = near[0] + Uniform(random, 0.0, 0.2) * size * RandomDirection(random);
            const Vec3d half = size * Vec3d(Uniform(random, 0.005, 0.4), Uniform(random, 0.005, 0.4),
                                            Uniform(random, 0.005, 0.4));
            RecordingCallback callback;
            const std::uint64_t before = shape.Stats().contacts;
            shape.processAllTriangles(&callback, ToBtVector(center - half), ToBtVector(center + half));
            EXPECT_EQ(shape.Stats().contacts - before, callback.counts.size());
            const Vec3d boxMin = ToVec3d(ToBtVector(center - half)), boxMax = ToVec3d(ToBtVector(center + half));
            for (std::size_t t = 0; t < triangles.size(); ++t)
            {
                const Vec3d low = triangles[t][0].cwiseMin(triangles[t][1]).cwiseMin(triangles[t][2]);
                const Vec3d high = triangles[t][0].cwiseMax(triangles[t][1]).cwiseMax(triangles[t][2]);
                const bool surelyIn = (low.array() <= boxMax.array() - band).all() &&
                                      (high.array() >= boxMin.array() + band).all();
                const bool surelyOut = (low.array() > boxMax.array() + band).any() ||
                                       (high.array() < boxMin.array() - band).any();
                const auto found = callback.counts.find(int(t));
                if (surelyIn)
                {
                    EXPECT_TRUE(found != callback.counts.end())
                        << name << " query " << query << " triangle " << t;
                }
                if (surelyOut)
                {
                    EXPECT_TRUE(found == callback.counts.end())
                        << name << " query " << query << " triangle " << t;
                }
                if (found == callback.counts.end())
                    continue;
                EXPECT_EQ(found->second, 1) << "reported more than once";
                for (int k = 0; k < 3; ++k)
                    EXPECT_LE((callback.vertices[int(t)][k] - triangles[t][k]).norm(), 1e-6 * size);
            }
            reported += callback.counts.size();
        }
        EXPECT_GT(reported, 200u) << "the queries should find triangles";
    }
}

TEST(DeformableShape, ProcessAllTrianglesHandlesHugeInvertedAndNaNBoxes)
{
    std::mt19937 random(13);
    DeformableShape shape(MakeAsset("chair", 800, 4));
    ASSERT_TRUE(shape.State().SetQ(ScaledQ(shape, 0.05, random)));
    const std::size_t count = shape.Asset().GetModel().TriangleCount();
    const btScalar large = btScalar(BT_LARGE_FLOAT);
    const btScalar infinity = std::numeric_limits<btScalar>::infinity();
    const btScalar nan = std::numeric_limits<btScalar>::quiet_NaN();
    auto reported = [&](const btVector3& inMin, const btVector3& inMax)
    {
        RecordingCallback callback;
        shape.processAllTriangles(&callback, inMin, inMax);
        for (const auto& [index, times] : callback.counts)
            EXPECT_EQ(times, 1) << index;
        return callback.counts.size();
    };
    EXPECT_EQ(reported(btVector3(-large, -large, -large), btVector3(large, large, large)), count);
    EXPECT_EQ(reported(btVector3(-infinity, -infinity, -infinity), btVector3(infinity, infinity, infinity)),
              count);
    EXPECT_EQ(reported(btVector3(-large, 1, -large), btVector3(large, -1, large)), 0u); // inverted in y
    EXPECT_EQ(reported(btVector3(-large, nan, -large), btVector3(large, large, large)), 0u);
    EXPECT_EQ(reported(btVector3(100, 100, 100), btVector3(101, 101, 101)), 0u);
    shape.processAllTriangles(nullptr, btVector3(-large, -large, -large), btVector3(large, large, large));
}

struct CountingDebugDraw : btIDebugDraw
{
    int triangles = 0;
    int mode = DBG_DrawWireframe;
    void drawTriangle(const btVector3&, const btVector3&, const btVector3&, const btVector3&,
                      btScalar) override
    {
        ++triangles;
    }
    void drawLine(const btVector3&, const btVector3&, const btVector3&) override {}
    void drawContactPoint(const btVector3&, const btVector3&, btScalar, int, const btVector3&) override {}
    void reportErrorWarning(const char*) override {}
    void draw3dText(const btVector3&, const char*) override {}
    void setDebugMode(int inMode) override { mode = inMode; }
    int getDebugMode() const override { return mode; }
};

TEST(DeformableShape, DebugDrawingThroughBulletDrawsEveryTriangle)
{
    std::mt19937 random(14);
    DeformableShape shape(MakeAsset("torus", 600, 4));
    SingleObjectWorld scene(shape, RandomTransform(random, 3.0));
    CountingDebugDraw drawer;
    scene.world.setDebugDrawer(&drawer);
    scene.world.debugDrawWorld();
    EXPECT_EQ(std::size_t(drawer.triangles), shape.Asset().GetModel().TriangleCount());
    scene.world.setDebugDrawer(nullptr);
}

// ---- Bullet's ray test and convex sweep, which reach the shape through processAllTriangles ----

// Bullet's closest-hit callback, also keeping the triangle index of the hit it keeps.
struct ClosestRayWithTriangle : btCollisionWorld::ClosestRayResultCallback
{
    int triangle = -1;
    using ClosestRayResultCallback::ClosestRayResultCallback;
    btScalar addSingleResult(btCollisionWorld::LocalRayResult& ioResult, bool inNormalInWorldSpace) override
    {
        triangle = ioResult.m_localShapeInfo ? ioResult.m_localShapeInfo->m_triangleIndex : -1;
        return ClosestRayResultCallback::addSingleResult(ioResult, inNormalInWorldSpace);
    }
};

// True when the point is on the triangle up to Bullet's edge tolerance (about 1e-4 of the triangle) and
// `inDistance` off its plane.
bool OnTriangleWithin(const Vec3d& inPoint, const Tri& inT, double inDistance)
{
    double planeDistance = 0.0;
    return BarycentricMin(inPoint, inT, planeDistance) >= -1e-3 && planeDistance <= inDistance;
}

TEST(DeformableShape, RayTestHitsWhereBruteForceDoes)
{
    std::mt19937 random(15);
    int hits = 0, sameTriangle = 0, silhouette = 0;
    for (const char* name : {"turned chair", "torus"})
    {
        DeformableShape shape(std::string(name) == "torus" ? MakeAsset(name, 1500, 6)
                                                           : TurnedShapeAsset("chair", 1500, 6));
        shape.setLocalScaling(btVector3(1, 1, 1) * btScalar(Uniform(random, 0.5, 2.0)));
        SingleObjectWorld scene(shape, RandomTransform(random, 3.0));
        const double size = Size(shape) * ShapeScale(shape);
        for (int step = 0; step < 4; ++step)
        {
            ASSERT_TRUE(shape.State().SetQ(ScaledQ(shape, 0.2, random)));
            scene.world.updateSingleAabb(&scene.object);
            const std::vector<Tri> triangles = PlacedTriangles(shape, scene.object.getWorldTransform());
            const Vec3d center = ToVec3d(scene.object.getWorldTransform().getOrigin());
            for (int ray = 0; ray < 60; ++ray)
            {
                // From outside, towards a point near a random vertex, and beyond it.
                const Vec3d start = center + 3.0 * size * RandomDirection(random);
                const Tri& aim = triangles[random() % triangles.size()];
                const Vec3d target = aim[0] + Uniform(random, 0.0, 0.05) * size * RandomDirection(random);
                const btVector3 from = ToBtVector(start), to = ToBtVector(start + 1.5 * (target - start));
                ClosestRayWithTriangle callback(from, to);
                scene.world.rayTest(from, to, callback);

                std::optional<double> best;
                std::size_t bestTriangle = 0;
                for (std::size_t t = 0; t < triangles.size(); ++t)
                {
                    const auto hit = OracleSegmentParameter(ToVec3d(from), ToVec3d(to), triangles[t]);
                    if (hit && (!best || *hit < *best))
                        best = hit, bestTriangle = t;
                }
                const Vec3d point = ToVec3d(from) + double(callback.m_closestHitFraction) * ToVec3d(to - from);
                if (!best)
                {
                    // Bullet takes hits up to about 1e-4 of a triangle outside its edges: a grazing hit on
                    // the silhouette is the only one brute force may not see.
                    if (callback.hasHit())
                    {
                        ++silhouette;
                        ASSERT_GE(callback.triangle, 0);
                        EXPECT_TRUE(OnTriangleWithin(point, triangles[callback.triangle], 1e-5 * size))
                            << name << " ray " << ray << ": a hit where brute force sees none";
                    }
                    continue;
                }
                ++hits;
                ASSERT_TRUE(callback.hasHit()) << name << " ray " << ray << ": brute force hits at " << *best;
                EXPECT_NEAR(callback.m_closestHitFraction, *best, 1e-5 * *best) << name << " ray " << ray;
                EXPECT_EQ(callback.m_collisionObject, &scene.object);
                ASSERT_GE(callback.triangle, 0);
                if (std::size_t(callback.triangle) == bestTriangle)
                    ++sameTriangle;
                else // a neighbour, hit within Bullet's edge tolerance at the same fraction
                    EXPECT_TRUE(OnTriangleWithin(point, triangles[callback.triangle], 1e-5 * size))
                        << name << " ray " << ray << ": triangle " << callback.triangle << " instead of "
                        << bestTriangle;
            }
        }
    }
    EXPECT_GT(hits, 300);
    EXPECT_GE(sameTriangle, hits - hits / 50)
        << "the same triangle as brute force, but for rare ties at edges";
    EXPECT_LE(silhouette, hits / 50);
}

TEST(DeformableShape, RayTestMissesRaysThatPassTheBodyBy)
{
    std::mt19937 random(16);
    DeformableShape shape(MakeAsset("chair", 1500, 6));
    SingleObjectWorld scene(shape, RandomTransform(random, 3.0));
    ASSERT_TRUE(shape.State().SetQ(ScaledQ(shape, 0.2, random)));
    scene.world.updateSingleAabb(&scene.object);
    btVector3 low, high;
    shape.getAabb(scene.object.getWorldTransform(), low, high);
    const Vec3d center = 0.5 * (ToVec3d(low) + ToVec3d(high));
    const double reach = 0.5 * (ToVec3d(high) - ToVec3d(low)).norm(); // every vertex is within this of the centre
    const std::vector<Tri> triangles = PlacedTriangles(shape, scene.object.getWorldTransform());
    for (int ray = 0; ray < 200; ++ray)
    {
        // A segment whose closest approach to the centre is 1.05 to 2 times `reach`.
        const Vec3d side = RandomDirection(random);
        Vec3d along = RandomDirection(random);
        along = (along - along.dot(side) * side).normalized();
        const Vec3d closest = center + Uniform(random, 1.05, 2.0) * reach * side;
        const btVector3 from = ToBtVector(closest - 4.0 * reach * along), to = ToBtVector(closest + 4.0 * reach * along);
        ClosestRayWithTriangle callback(from, to);
        scene.world.rayTest(from, to, callback);
        EXPECT_FALSE(callback.hasHit()) << "ray " << ray;
        for (const Tri& t : triangles)
            ASSERT_FALSE(OracleSegmentParameter(ToVec3d(from), ToVec3d(to), t)) << "the oracle should agree";
    }
}

// The gap at which Bullet's conservative advancement stops (btContinuousConvexCollision, world units).
constexpr double cBulletCastTolerance = 0.001;

TEST(DeformableShape, ConvexSweepOfASphereStopsWhereBruteForceDoes)
{
    std::mt19937 random(17);
    int hits = 0, close = 0;
    for (const char* name : {"chair", "turned torus"})
    {
        DeformableShape shape(std::string(name) == "chair" ? MakeAsset(name, 1200, 6)
                                                           : TurnedShapeAsset("torus", 1200, 6));
        shape.setLocalScaling(btVector3(1, 1, 1) * btScalar(Uniform(random, 0.5, 2.0)));
        SingleObjectWorld scene(shape, RandomTransform(random, 3.0));
        const double size = Size(shape) * ShapeScale(shape);
        btSphereShape sphere(btScalar(0.04 * size));
        for (int step = 0; step < 3; ++step)
        {
            ASSERT_TRUE(shape.State().SetQ(ScaledQ(shape, 0.2, random)));
            scene.world.updateSingleAabb(&scene.object);
            const std::vector<Tri> triangles = PlacedTriangles(shape, scene.object.getWorldTransform());
            const Vec3d center = ToVec3d(scene.object.getWorldTransform().getOrigin());
            for (int sweep = 0; sweep < 25; ++sweep)
            {
                const Vec3d start = center + 3.0 * size * RandomDirection(random);
                const Tri& aim = triangles[random() % triangles.size()];
                const btVector3 from = ToBtVector(start), to = ToBtVector(start + 1.5 * (aim[1] - start));
                btCollisionWorld::ClosestConvexResultCallback callback(from, to);
                scene.world.convexSweepTest(&sphere, btTransform(btQuaternion::getIdentity(), from),
                                            btTransform(btQuaternion::getIdentity(), to), callback);
                std::optional<double> best;
                for (const Tri& t : triangles)
                {
                    const auto hit = SphereSweepTriangle(ToVec3d(from), ToVec3d(to), sphere.getRadius(), t);
                    if (hit && (!best || *hit < *best))
                        best = hit;
                }
                ASSERT_TRUE(best) << "the sweep aims through a vertex";
                ++hits;
                ASSERT_TRUE(callback.hasHit())
                    << name << " sweep " << sweep << ": brute force hits at " << *best;
                // Bullet's conservative advancement (btContinuousConvexCollision) stops once the gap is at
                // most 0.001 world units, never after the contact: check the gap where it stopped.
                const double fraction = callback.m_closestHitFraction;
                const Vec3d stop = ToVec3d(from) + fraction * ToVec3d(to - from);
                double gap = std::numeric_limits<double>::infinity();
                for (const Tri& t : triangles)
                {
                    const Vec3d vertices[3] = {t[0], t[1], t[2]};
                    gap = std::min(gap, (stop - ClosestPointOnTriangle(stop, vertices)).norm());
                }
                gap -= sphere.getRadius();
                EXPECT_LE(fraction, *best + 1e-5)
                    << name << " sweep " << sweep << ": stopped past the contact";
                EXPECT_GE(gap, -1e-5 * size) << name << " sweep " << sweep;
                EXPECT_LE(gap, cBulletCastTolerance + 1e-5 * size) << name << " sweep " << sweep;
                if (std::abs(fraction - *best) <= 1e-3)
                    ++close;
            }
        }
    }
    EXPECT_EQ(hits, 150);
    EXPECT_GE(close, hits * 9 / 10) << "within 1e-3 of the sweep but for grazing contacts";
}

// Counts the points Bullet's contact queries report, with the deepest.
struct ContactCounter : btCollisionWorld::ContactResultCallback
{
    int count = 0;
    double deepest = std::numeric_limits<double>::infinity();
    btScalar addSingleResult(btManifoldPoint& inPoint, const btCollisionObjectWrapper*, int, int,
                             const btCollisionObjectWrapper*, int, int) override
    {
        ++count;
        deepest = std::min(deepest, double(inPoint.getDistance()));
        return 0;
    }
};

TEST(DeformableShape, ContactTestReportsASphereOnTheSurfaceAndNotOneInTheHole)
{
    std::mt19937 random(23);
    DeformableShape shape(MakeAsset("torus", 800, 4));
    const double size = Size(shape);
    SingleObjectWorld scene(shape, RandomTransform(random, 3.0), true);
    ASSERT_TRUE(shape.State().SetQ(ScaledQ(shape, 0.01, random)));
    scene.world.updateSingleAabb(&scene.object);
    const std::vector<Tri> triangles = PlacedTriangles(shape, scene.object.getWorldTransform());

    btSphereShape ball(btScalar(0.05 * size));
    btCollisionObject probe;
    probe.setCollisionShape(&ball);
    for (int trial = 0; trial < 20; ++trial)
    {
        // Centred on the deformed surface: the ball overlaps it.
        probe.setWorldTransform(
            btTransform(btQuaternion::getIdentity(), ToBtVector(triangles[random() % triangles.size()][0])));
        ContactCounter all, pair;
        scene.world.contactTest(&probe, all);
        scene.world.contactPairTest(&probe, &scene.object, pair);
        EXPECT_GT(all.count, 0) << "trial " << trial;
        EXPECT_GT(pair.count, 0) << "trial " << trial;
        EXPECT_LT(all.deepest, 0.0) << "the ball is half inside the surface";
    }
    // The torus' hole (ring radius 0.5, tube 0.15: a hole of radius 0.35, about 0.38 of the model size): a
    // ball at its centre touches nothing, though it is inside the body's box.
    ball.setUnscaledRadius(btScalar(0.2 * size));
    const btTransform& placed = scene.object.getWorldTransform();
    probe.setWorldTransform(btTransform(btQuaternion::getIdentity(), placed * ToBtVector(Vec3d::Zero())));
    for (const Tri& t : triangles)
        for (const Vec3d& vertex : t)
            ASSERT_GT((vertex - ToVec3d(probe.getWorldTransform().getOrigin())).norm(), 0.3 * size);
    ContactCounter hole;
    scene.world.contactTest(&probe, hole);
    EXPECT_EQ(hole.count, 0);
}

// ---- Inertia, scaling and margin ----

TEST(DeformableShape, LocalInertiaIsMassTimesScaleSquaredTimesPrincipalMoments)
{
    DeformableShape chair(MakeAsset("chair", 1500, 4));
    chair.setLocalScaling(btVector3(1.5, 1.5, 1.5));
    btVector3 inertia;
    chair.calculateLocalInertia(btScalar(2.5), inertia);
    const Vec3d expected = 2.5 * 1.5 * 1.5 * chair.Asset().Mass().principalInertia;
    for (int axis = 0; axis < 3; ++axis)
        EXPECT_NEAR(inertia[axis], expected[axis], 1e-6 * expected.maxCoeff());

    // A solid unit cube about its centre: m (1² + 1²) / 12 on every axis, scaled by s².
    DeformableShape box(TurnedShapeAsset("box", 1200, 4));
    ASSERT_TRUE(box.Asset().Mass().solid);
    box.setLocalScaling(btVector3(2, 2, 2));
    box.calculateLocalInertia(btScalar(3), inertia);
    for (int axis = 0; axis < 3; ++axis)
        EXPECT_NEAR(inertia[axis], 3.0 * 4.0 / 6.0, 1e-6 * 2.0) << axis;
}

TEST(DeformableShape, SetLocalScalingAcceptsOnlyUniformPositiveFiniteScales)
{
    std::mt19937 random(18);
    DeformableShape shape(MakeAsset("chair", 800, 4));
    const btTransform identity = btTransform::getIdentity();
    btVector3 low, high;
    shape.getAabb(identity, low, high);
    const btScalar nan = std::numeric_limits<btScalar>::quiet_NaN();
    const btScalar infinity = std::numeric_limits<btScalar>::infinity();
    for (const btVector3& bad :
         {btVector3(1, 2, 1), btVector3(0, 0, 0), btVector3(-1, -1, -1), btVector3(nan, nan, nan),
          btVector3(infinity, infinity, infinity), btVector3(1, 1, nan)})
    {
        EXPECT_THROW(shape.setLocalScaling(bad), Error);
        EXPECT_EQ(ToVec3d(shape.getLocalScaling()), Vec3d(1, 1, 1));
        btVector3 sameLow, sameHigh;
        shape.getAabb(identity, sameLow, sameHigh);
        EXPECT_EQ(ToVec3d(sameLow), ToVec3d(low));
        EXPECT_EQ(ToVec3d(sameHigh), ToVec3d(high));
    }

    // q and q̇ survive a rescale; the modal masses grow with s².
    std::vector<double> q(shape.Dynamics().ModeCount()), qDot(q.size());
    for (std::size_t j = 0; j < q.size(); ++j)
        q[j] = 0.5 * shape.Dynamics().StrainLimit(std::uint32_t(j)), qDot[j] = Uniform(random, -1, 1);
    ASSERT_TRUE(shape.Dynamics().SetState(q, qDot));
    const double mass0 = shape.Dynamics().ModalMass(0);
    shape.setLocalScaling(btVector3(2, 2, 2));
    EXPECT_EQ(ToVec3d(shape.getLocalScaling()), Vec3d(2, 2, 2));
    for (std::size_t j = 0; j < q.size(); ++j)
    {
        EXPECT_DOUBLE_EQ(shape.Dynamics().QDouble()[j], q[j]);
        EXPECT_DOUBLE_EQ(shape.Dynamics().QDot()[j], qDot[j]);
    }
    EXPECT_NEAR(shape.Dynamics().ModalMass(0), 4.0 * mass0, 1e-12 * mass0);
    // The guards' counters survive the rebuilds of the dynamics (a rescale, a new mass): totals never go back.
    const std::vector<double> nanImpulse(q.size(), std::numeric_limits<double>::quiet_NaN());
    shape.Dynamics().ApplyImpulse(nanImpulse);
    const std::uint64_t rejected = shape.Dynamics().GuardStats().rejectedImpulses;
    ASSERT_GT(rejected, 0u);
    shape.setLocalScaling(btVector3(3, 3, 3));
    EXPECT_EQ(shape.Dynamics().GuardStats().rejectedImpulses, rejected);
    DeformableShapeSettings heavier = shape.Settings();
    heavier.mass *= 2.0;
    shape.SetSettings(heavier);
    EXPECT_EQ(shape.Dynamics().GuardStats().rejectedImpulses, rejected);
    shape.setLocalScaling(btVector3(2, 2, 2));

    btVector3 scaledLow, scaledHigh;
    shape.getAabb(identity, scaledLow, scaledHigh);
    for (int axis = 0; axis < 3; ++axis)
    {
        EXPECT_NEAR(scaledHigh[axis] - scaledLow[axis], 2.0 * (high[axis] - low[axis]),
                    1e-5 * (high[axis] - low[axis]));
        EXPECT_NEAR(scaledHigh[axis] + scaledLow[axis], 2.0 * (high[axis] + low[axis]),
                    1e-5 * (high[axis] - low[axis]));
    }
}

TEST(DeformableShape, SetMarginGrowsTheBoxAndRejectsNegativeNonFiniteOrHugeMargins)
{
    DeformableShape shape(MakeAsset("torus", 600, 4));
    EXPECT_EQ(shape.getMargin(), btScalar(0));
    const btTransform identity = btTransform::getIdentity();
    btVector3 low, high;
    shape.getAabb(identity, low, high);
    // (A margin of 1e12, which the fuzzer found, overflowed Bullet's solve into NaN in a box it touched.)
    for (const btScalar bad : {btScalar(-0.01), std::numeric_limits<btScalar>::quiet_NaN(),
                               std::numeric_limits<btScalar>::infinity(), btScalar(1e12), btScalar(1e30),
                               std::nextafter(btScalar(DeformableShape::cMaxMargin), btScalar(2))})
    {
        EXPECT_THROW(shape.setMargin(bad), Error);
        EXPECT_EQ(shape.getMargin(), btScalar(0));
    }
    shape.setMargin(btScalar(0.05));
    EXPECT_EQ(shape.getMargin(), btScalar(0.05));
    btVector3 grownLow, grownHigh;
    shape.getAabb(identity, grownLow, grownHigh);
    for (int axis = 0; axis < 3; ++axis)
    {
        EXPECT_NEAR(low[axis] - grownLow[axis], 0.05, 1e-6);
        EXPECT_NEAR(grownHigh[axis] - high[axis], 0.05, 1e-6);
    }
}

// ---- Deformation state and impulses ----

TEST(DeformableShape, ContactImpulsesGiveTheBruteForceVelocityJump)
{
    std::mt19937 random(19);
    DeformableShapeSettings settings;
    settings.mass = 3.0;
    settings.proxyLevel = 4;
    DeformableShape shape(TurnedShapeAsset("chair", 1500, 6), settings);
    const double scale = 1.7;
    shape.setLocalScaling(btVector3(1, 1, 1) * btScalar(scale));
    const btQuaternion rotation = RandomQuaternion(random);
    const btTransform transform(rotation, btVector3(1, 2, 3));
    const Mat3d worldFromLocal = Eigen::Quaterniond(rotation.w(), rotation.x(), rotation.y(), rotation.z())
                                     .normalized()
                                     .toRotationMatrix();
    const Mat3d restToWorld = worldFromLocal * shape.Asset().Mass().ToPrincipal().rotation;
    const ContactProxies& proxies = shape.State().Proxies();
    const std::uint32_t modes = shape.State().ModeCount();

    // Σ over impulses of s·Ū_jᵀ Rᵀ J / μ_j.
    auto expectedJump = [&](const std::vector<std::pair<std::uint32_t, Vec3d>>& inImpulses)
    {
        std::vector<double> jump(modes, 0.0);
        for (const auto& [node, impulse] : inImpulses)
            for (std::uint32_t j = 0; j < modes; ++j)
            {
                const float* u = proxies.Row(node) + 4 * (j + 1);
                jump[j] += scale * Vec3d(u[0], u[1], u[2]).dot(restToWorld.transpose() * impulse) /
                           shape.Dynamics().ModalMass(j);
            }
        return jump;
    };
    auto velocity = [&]
    {
        return std::vector<double>(shape.Dynamics().QDot().begin(), shape.Dynamics().QDot().end());
    };
    auto expectJump = [&](const std::vector<double>& inBefore, const std::vector<double>& inJump)
    {
        double largest = 0.0;
        for (const double value : inJump)
            largest = std::max(largest, std::abs(value));
        ASSERT_GT(largest, 0.0);
        for (std::uint32_t j = 0; j < modes; ++j)
            EXPECT_NEAR(shape.Dynamics().QDot()[j] - inBefore[j], inJump[j], 1e-5 * largest) << "mode " << j;
    };

    const std::vector<std::uint32_t> nodes = ProxyNodes(proxies);
    ASSERT_GE(nodes.size(), 2u);
    for (int trial = 0; trial < 10; ++trial)
    {
        const std::uint32_t a = nodes[random() % nodes.size()], b = nodes[random() % nodes.size()];
        const Vec3d impulseA = Uniform(random, 0.1, 5.0) * RandomDirection(random);
        const Vec3d impulseB = Uniform(random, 0.1, 5.0) * RandomDirection(random);
        const std::vector<double> before = velocity();
        ShapeSolver::Of(shape).AccumulateImpulse(a, ToBtVector(impulseA), transform);
        ShapeSolver::Of(shape).AccumulateImpulse(b, ToBtVector(impulseB), transform);
        EXPECT_EQ(velocity(), before) << "nothing moves before the flush";
        ShapeSolver::Of(shape).FlushImpulses();
        expectJump(before, expectedJump({{a, ToVec3d(ToBtVector(impulseA))}, {b, ToVec3d(ToBtVector(impulseB))}}));
        const std::vector<double> flushed = velocity();
        ShapeSolver::Of(shape).FlushImpulses();
        EXPECT_EQ(velocity(), flushed) << "a flush clears the accumulated impulse";
    }

    // A NaN impulse is ignored and counted, and does not spoil the impulses around it.
    const std::uint64_t rejected = shape.Dynamics().GuardStats().rejectedImpulses;
    const std::vector<double> before = velocity();
    const btScalar nan = std::numeric_limits<btScalar>::quiet_NaN();
    ShapeSolver::Of(shape).AccumulateImpulse(nodes[0], btVector3(1, 0, 0), transform);
    ShapeSolver::Of(shape).AccumulateImpulse(nodes[1], btVector3(nan, 0, 0), transform);
    ShapeSolver::Of(shape).AccumulateImpulse(shape.State().Tree().NodeCount(), btVector3(1, 0, 0),
                                             transform); // not a node
    ShapeSolver::Of(shape).FlushImpulses();
    EXPECT_EQ(shape.Dynamics().GuardStats().rejectedImpulses, rejected + 1);
    expectJump(before, expectedJump({{nodes[0], Vec3d(1, 0, 0)}}));

    const std::vector<double> after = velocity();
    ShapeSolver::Of(shape).AccumulateImpulse(nodes[0], btVector3(nan, nan, nan), transform);
    ShapeSolver::Of(shape).FlushImpulses();
    EXPECT_EQ(velocity(), after);
}

TEST(DeformableShape, CouplingImpulsesAddWhatTheContactImpulseAlongTheirDirectionAdds)
{
    std::mt19937 random(23);
    DeformableShapeSettings settings;
    settings.mass = 2.0;
    settings.proxyLevel = 4;
    const auto asset = TurnedShapeAsset("chair", 1500, 6);
    DeformableShape projected(asset, settings), coupled(asset, settings);
    for (DeformableShape* shape : {&projected, &coupled})
        shape->setLocalScaling(btVector3(1, 1, 1) * btScalar(1.3));
    const btTransform transform(RandomQuaternion(random), btVector3(-1, 2, 0.5));
    const Mat3d restToWorld = coupled.RestToWorld(transform);
    const std::vector<std::uint32_t> nodes = ProxyNodes(coupled.State().Proxies());
    const std::uint32_t modes = coupled.State().ModeCount();
    std::vector<double> coupling(modes);
    for (int trial = 0; trial < 20; ++trial)
    {
        const std::uint32_t node = nodes[random() % nodes.size()];
        const Vec3d direction = RandomDirection(random);
        const double impulse = Uniform(random, -3.0, 3.0);
        ShapeSolver::Of(projected).AccumulateImpulse(node, ToBtVector(Vec3d(impulse * direction)),
                                                     restToWorld);
        ASSERT_TRUE(ShapeSolver::Of(coupled).ProxyCoupling(node, direction, restToWorld, coupling));
        ShapeSolver::Of(coupled).AccumulateImpulse(coupling, impulse);
    }
    double largest = 0.0;
    for (std::uint32_t j = 0; j < modes; ++j)
        largest = std::max(largest, std::abs(ShapeSolver::Of(projected).PendingImpulse()[j]));
    ASSERT_GT(largest, 0.0);
    for (std::uint32_t j = 0; j < modes; ++j)
        EXPECT_NEAR(ShapeSolver::Of(coupled).PendingImpulse()[j],
                    ShapeSolver::Of(projected).PendingImpulse()[j], 1e-6 * largest)
            << "mode " << j;

    // A non-finite impulse is counted and spoils nothing; a shorter coupling leaves the other modes alone.
    const std::vector<double> before = test::PendingImpulse(coupled);
    const std::uint64_t rejected = coupled.Dynamics().GuardStats().rejectedImpulses;
    ShapeSolver::Of(coupled).AccumulateImpulse(coupling, std::numeric_limits<double>::quiet_NaN());
    ShapeSolver::Of(coupled).AccumulateImpulse(coupling, std::numeric_limits<double>::infinity());
    EXPECT_EQ(coupled.Dynamics().GuardStats().rejectedImpulses, rejected + 2);
    EXPECT_EQ(test::PendingImpulse(coupled), before);
    const std::vector<double> firstTwo = {1.0, -2.0};
    ShapeSolver::Of(coupled).AccumulateImpulse(firstTwo, 0.5);
    EXPECT_EQ(ShapeSolver::Of(coupled).PendingImpulse()[0], before[0] + 0.5);
    EXPECT_EQ(ShapeSolver::Of(coupled).PendingImpulse()[1], before[1] - 1.0);
    for (std::uint32_t j = 2; j < modes; ++j)
        EXPECT_EQ(ShapeSolver::Of(coupled).PendingImpulse()[j], before[j]) << "mode " << j;
}

TEST(DeformableShape, SetQRejectsBadValuesAndKeepsTheStateAndDynamicsTogether)
{
    std::mt19937 random(20);
    DeformableShape shape(MakeAsset("torus", 600, 5));
    const std::uint32_t modes = shape.State().ModeCount();
    std::vector<float> q(modes);
    for (std::uint32_t j = 0; j < modes; ++j)
        q[j] = float(Uniform(random, -0.5, 0.5) * shape.Dynamics().StrainLimit(j));
    ASSERT_TRUE(shape.SetQ(q));
    auto stateQ = [&]
    {
        return std::vector<float>(shape.State().Q().begin(), shape.State().Q().end());
    };
    auto dynamicsQ = [&]
    {
        return std::vector<float>(shape.Dynamics().Q().begin(), shape.Dynamics().Q().end());
    };
    EXPECT_EQ(stateQ(), q);
    EXPECT_EQ(dynamicsQ(), q);
    for (const double v : shape.Dynamics().QDot())
        EXPECT_EQ(v, 0.0);

    std::vector<std::vector<float>> bad = {std::vector<float>(modes - 1, 0.0f),
                                           std::vector<float>(modes + 1, 0.0f)};
    for (const float value : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                              2.0f * TreeState::cMaxAbsQ})
    {
        bad.push_back(q);
        bad.back()[modes / 2] = value;
    }
    for (const std::vector<float>& values : bad)
    {
        EXPECT_FALSE(shape.SetQ(values));
        EXPECT_EQ(stateQ(), q);
        EXPECT_EQ(dynamicsQ(), q);
    }

    // Beyond the strain limit: clamped in both.
    std::vector<float> far(modes);
    for (std::uint32_t j = 0; j < modes; ++j)
        far[j] = float((j % 2 ? 3.0 : -3.0) * shape.Dynamics().StrainLimit(j));
    ASSERT_TRUE(shape.SetQ(far));
    EXPECT_EQ(stateQ(), dynamicsQ());
    for (std::uint32_t j = 0; j < modes; ++j)
        EXPECT_NEAR(std::abs(shape.State().Q()[j]), shape.Dynamics().StrainLimit(j),
                    1e-6 * shape.Dynamics().StrainLimit(j));
}

TEST(DeformableShape, BeginStepHandsTheDynamicsQToTheTreeState)
{
    std::mt19937 random(21);
    DeformableShapeSettings settings;
    settings.modal.strainLimit = 1e30f; // the dynamics' own cap on |q_j| then applies
    DeformableShape shape(MakeAsset("sphere", 400, 4), settings);
    const std::uint32_t modes = shape.State().ModeCount();
    std::vector<double> q(modes), qDot(modes, 0.5);
    for (double& value : q)
        value = Uniform(random, -0.01, 0.01);
    ASSERT_TRUE(shape.Dynamics().SetState(q, qDot));
    EXPECT_TRUE(shape.BeginStep());
    for (std::uint32_t j = 0; j < modes; ++j)
        EXPECT_EQ(shape.State().Q()[j], shape.Dynamics().Q()[j]);

    std::vector<double> huge(modes, 0.0);
    huge[0] = 1e20;
    ASSERT_TRUE(shape.Dynamics().SetState(huge, qDot));
    EXPECT_TRUE(shape.BeginStep()) << "the dynamics cap |q_j| (1e9) below what the tree state refuses";
    EXPECT_EQ(shape.State().Q()[0], shape.Dynamics().Q()[0]);
    btVector3 low, high;
    shape.getAabb(btTransform::getIdentity(), low, high);
    EXPECT_TRUE(std::isfinite(low.x()) && std::isfinite(high.x()));

    // The dynamics reject every non-finite state, so BeginStep's reset cannot be reached from outside;
    // the rejections themselves:
    std::vector<double> bad = q;
    bad[1] = std::numeric_limits<double>::quiet_NaN();
    EXPECT_FALSE(shape.Dynamics().SetState(bad, qDot));
    EXPECT_FALSE(
        shape.Dynamics().SetState(q, std::vector<double>(modes, std::numeric_limits<double>::infinity())));
    EXPECT_TRUE(shape.BeginStep());
    EXPECT_EQ(shape.State().Q()[0], shape.Dynamics().Q()[0]);
}

TEST(DeformableShape, SetSettingsValidatesEverythingBeforeApplyingAnything)
{
    std::mt19937 random(22);
    DeformableShape shape(MakeAsset("chair", 1500, 4));
    const DeformableShapeSettings original = shape.Settings();
    const std::uint32_t level = shape.State().Proxies().Level();
    std::vector<double> q(shape.Dynamics().ModeCount()), qDot(q.size());
    for (std::size_t j = 0; j < q.size(); ++j)
        q[j] = 0.3 * shape.Dynamics().StrainLimit(std::uint32_t(j)), qDot[j] = Uniform(random, -1, 1);
    ASSERT_TRUE(shape.Dynamics().SetState(q, qDot));
    const double modalMass = shape.Dynamics().ModalMass(0);

    std::vector<DeformableShapeSettings> bad(5, original);
    bad[0].mass = -1.0;
    bad[1].maxManifoldsPerPair = 0;
    bad[2].modal.stiffnessScale = -1.0f;
    bad[3].mass = std::numeric_limits<double>::infinity();
    bad[4].pairCacheSkin = -1.0;
    for (DeformableShapeSettings& settings : bad)
    {
        settings.proxyLevel = 2; // would change the proxies if applied
        settings.temporalCoherence = true;
        EXPECT_THROW(shape.SetSettings(settings), Error);
        EXPECT_EQ(shape.Settings().mass, original.mass);
        EXPECT_EQ(shape.Settings().proxyLevel, original.proxyLevel);
        EXPECT_EQ(shape.State().Proxies().Level(), level);
        EXPECT_FALSE(shape.State().TemporalCoherence());
        EXPECT_EQ(shape.Dynamics().ModalMass(0), modalMass);
    }

    DeformableShapeSettings settings = original;
    settings.proxyLevel = 3;
    settings.mass = 2.0 * original.mass;
    settings.bound = EBound::Paper;
    settings.temporalCoherence = true;
    settings.modal.dampingScale = 2.0f;
    shape.SetSettings(settings);
    EXPECT_EQ(shape.State().Proxies().Level(), 3u);
    EXPECT_EQ(shape.State().Bound(), EBound::Paper);
    EXPECT_TRUE(shape.State().TemporalCoherence());
    EXPECT_EQ(shape.Settings().mass, settings.mass);
    EXPECT_EQ(shape.Dynamics().Settings().dampingScale, 2.0f);
    EXPECT_NEAR(shape.Dynamics().ModalMass(0), 2.0 * modalMass, 1e-12 * modalMass);
    for (std::size_t j = 0; j < q.size(); ++j)
    {
        EXPECT_DOUBLE_EQ(shape.Dynamics().QDouble()[j], q[j]);
        EXPECT_DOUBLE_EQ(shape.Dynamics().QDot()[j], qDot[j]);
    }
    // Same mass, new stiffness: the dynamics are kept (their guard counters too), their frequencies change.
    ShapeSolver::Of(shape).AccumulateImpulse(0, btVector3(std::numeric_limits<btScalar>::quiet_NaN(), 0, 0),
                                             btTransform::getIdentity());
    const std::uint64_t rejected = shape.Dynamics().GuardStats().rejectedImpulses;
    ASSERT_GT(rejected, 0u);
    const double frequency = shape.Dynamics().Frequency(0);
    settings.modal.stiffnessScale = 4.0f;
    shape.SetSettings(settings);
    EXPECT_EQ(shape.Dynamics().GuardStats().rejectedImpulses, rejected);
    EXPECT_NEAR(shape.Dynamics().Frequency(0), 2.0 * frequency, 1e-9 * frequency);
    EXPECT_DOUBLE_EQ(shape.Dynamics().QDot()[0], qDot[0]);

    // The new proxies serve queries at once: the root sphere still holds the body.
    EXPECT_TRUE(shape.BeginStep());
    btVector3 low, high;
    shape.getAabb(btTransform::getIdentity(), low, high);
    for (const Vec3d& vertex : LocalVertices(shape))
        EXPECT_TRUE((vertex.array() >= ToVec3d(low).array()).all() &&
                    (vertex.array() <= ToVec3d(high).array()).all());
}

} // namespace
} // namespace bdt
