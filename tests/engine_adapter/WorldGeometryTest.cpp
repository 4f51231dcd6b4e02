// bdt::World's geometry for renderers and game logic: the mesh frame's placement, the deformed vertices, their
// normals and their motion over the last step, against brute force (p + U q summed here, placed by the body's
// transform and the rest shape's principal frame, normals summed from the deformed triangles), and bad input.
#include "support/BulletScenes.h"
#include "support/TestModels.h"

#include "core/geometry/TriangleGeometry.h"

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <bdt/samples/SampleWorld.h>
#include <bdt/adapter/World.h>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/bounds/BDTree.h>
#include <bdt/core/base/Error.h>
#include <bdt/core/model/ProceduralShapes.h>
#include <btBulletDynamicsCommon.h>
#include <algorithm>
#include <gtest/gtest.h>
#include <limits>
#include <random>
#include <vector>

namespace bdt
{
namespace
{

constexpr double cScale = 1.5;

/// A turned chair (its principal axes are not the rest axes), scaled and rotated, dropped for a few steps, then
/// given a q of half each mode's strain limit with alternating signs.
btRigidBody* AddDeformedBody(SampleWorld& ioWorld, const std::shared_ptr<const DeformableAsset>& inAsset)
{
    BodySettings desc;
    desc.scale = cScale;
    desc.proxyLevel = 6;
    desc.transform.setRotation(btQuaternion(btVector3(0.3f, 1.0f, -0.2f).normalized(), 0.9f));
    desc.transform.setOrigin(btVector3(0.4f, 3.0f, -0.7f));
    btRigidBody* body = ioWorld.Deformables().CreateBody(inAsset, desc);
    ioWorld.Step(5);
    DeformableShape& shape = *World::Shape(body);
    std::vector<float> q(shape.Dynamics().ModeCount());
    for (std::size_t j = 0; j < q.size(); ++j)
        q[j] = float((j % 2 == 0 ? 0.5 : -0.5) * shape.Dynamics().StrainLimit(std::uint32_t(j)));
    EXPECT_TRUE(shape.SetQ(q));
    return body;
}

/// Brute force: world position of every vertex, p_i + Σ_j U_ij q_j in double, then s·R_bR_pᵀ(x − c) + o_b (the
/// body's frame is the rest shape's principal frame scaled by s).
std::vector<Vec3d> BruteForceVertices(btRigidBody& inBody)
{
    const DeformableShape& shape = *World::Shape(&inBody);
    const Model& model = shape.Asset().GetModel();
    const std::span<const float> q = shape.State().Q();
    const Mat3d bodyRotation = ToMat3d(inBody.getWorldTransform().getBasis());
    const Vec3d origin = ToVec3d(inBody.getWorldTransform().getOrigin());
    const MassProperties& mass = shape.Asset().Mass();
    std::vector<Vec3d> world;
    for (std::size_t i = 0; i < model.VertexCount(); ++i)
    {
        Vec3d x = model.Positions()[i].cast<double>();
        for (std::size_t j = 0; j < q.size(); ++j)
            x += double(q[j]) * model.BasisVector(i, j).cast<double>();
        world.push_back(bodyRotation * (cScale * mass.principalAxes.transpose() * (x - mass.centerOfMass)) + origin);
    }
    return world;
}

TEST(WorldGeometry, DeformedVerticesArePlusUqPlacedByTheMeshTransform)
{
    SampleWorld world;
    btRigidBody* body = AddDeformedBody(world, test::TurnedShapeAsset("chair", 1500, 6));
    const std::vector<Vec3d> expected = BruteForceVertices(*body);
    std::vector<float> xyz(3 * expected.size(), -1.0f);
    world.Deformables().DeformedVertices(body, xyz);
    const btTransform mesh = world.Deformables().MeshTransform(body);
    const Model& model = World::Shape(body)->Asset().GetModel();
    const std::span<const float> q = World::Shape(body)->State().Q();
    double largest = 0.0;
    for (std::size_t i = 0; i < expected.size(); ++i)
    {
        const Vec3d got(xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]);
        largest = std::max(largest, (got - expected[i]).norm());
        // The mesh frame places the deformed model-space vertex, scaled, where the body has it.
        const Vec3d local = cScale * model.DeformedPosition(i, q);
        const Vec3d placed = ToVec3d(mesh * btVector3(btScalar(local.x()), btScalar(local.y()), btScalar(local.z())));
        ASSERT_LT((placed - expected[i]).norm(), 1e-5) << "vertex " << i;
    }
    // Float output of positions a few metres from the origin, and the nearest-rotation fit of a float basis.
    EXPECT_LT(largest, 4e-6);
    EXPECT_GT(World::Shape(body)->State().Q().size(), 0u);
}

TEST(WorldGeometry, PreviousStateIsTheLastStepsStartAndVertexMotionItsDifference)
{
    SampleWorld world;
    world.AddGroundPlane();
    btRigidBody* body = AddDeformedBody(world, test::TurnedShapeAsset("chair", 1500, 6));
    World& deformables = world.Deformables();
    const std::size_t count = World::Shape(body)->Asset().GetModel().VertexCount();
    // A blow at a corner sets the modes moving; the chair is also falling and turning.
    const Vec3d first = BruteForceVertices(*body)[0];
    const btVector3 corner(btScalar(first.x()), btScalar(first.y()), btScalar(first.z()));
    ASSERT_TRUE(deformables.ApplyImpulse(body, corner, btVector3(3, -2, 1)));
    for (int step = 0; step < 4; ++step)
    {
        const btTransform meshBefore = deformables.MeshTransform(body);
        const std::span<const float> qNow = World::Shape(body)->State().Q();
        const std::vector<float> qBefore(qNow.begin(), qNow.end());
        std::vector<float> before(3 * count), after(3 * count), motion(3 * count, 7.0f);
        deformables.DeformedVertices(body, before);
        world.Step(1);
        const std::span<const float> previous = deformables.PreviousQ(body);
        EXPECT_TRUE(std::equal(previous.begin(), previous.end(), qBefore.begin(), qBefore.end())) << step;
        const btTransform meshPrevious = deformables.PreviousMeshTransform(body);
        EXPECT_LT((meshPrevious.getOrigin() - meshBefore.getOrigin()).length(), 1e-6) << step;
        EXPECT_LT((meshPrevious.getBasis().getRow(0) - meshBefore.getBasis().getRow(0)).length() +
                      (meshPrevious.getBasis().getRow(1) - meshBefore.getBasis().getRow(1)).length(),
                  1e-6)
            << step;
        deformables.DeformedVertices(body, after);
        deformables.VertexMotion(body, motion);
        double deviation = 0.0, moved = 0.0, modal = 0.0;
        Vec3d mean = Vec3d::Zero();
        for (std::size_t i = 0; i < count; ++i)
        {
            const Vec3d d(motion[3 * i], motion[3 * i + 1], motion[3 * i + 2]);
            const Vec3d expected(after[3 * i] - before[3 * i], after[3 * i + 1] - before[3 * i + 1],
                                 after[3 * i + 2] - before[3 * i + 2]);
            deviation = std::max(deviation, (d - expected).norm());
            moved = std::max(moved, d.norm());
            mean += d / double(count);
        }
        for (std::size_t j = 0; j < qBefore.size(); ++j)
            modal = std::max(modal, std::abs(double(World::Shape(body)->State().Q()[j]) - double(qBefore[j])));
        // Differences of float positions a few metres out against the double difference.
        EXPECT_LT(deviation, 2e-6) << step;
        EXPECT_GT(moved, 1e-3) << step; // the step moved the chair
        EXPECT_GT(modal, 0.0) << step;  // and its modes
    }
}

TEST(WorldGeometry, AFreshBodyHasNoMotion)
{
    SampleWorld world;
    BodySettings desc;
    desc.transform.setOrigin(btVector3(1, 2, 3));
    btRigidBody* body = world.Deformables().CreateBody(test::ShapeAsset("box", 300, 4), desc);
    const std::span<const float> q = World::Shape(body)->State().Q();
    const std::span<const float> previous = world.Deformables().PreviousQ(body);
    EXPECT_TRUE(std::equal(previous.begin(), previous.end(), q.begin(), q.end()));
    EXPECT_EQ(previous.size(), 4u);
    EXPECT_EQ(world.Deformables().PreviousMeshTransform(body).getOrigin(),
              world.Deformables().MeshTransform(body).getOrigin());
    std::vector<float> motion(3 * World::Shape(body)->Asset().GetModel().VertexCount(), 7.0f);
    world.Deformables().VertexMotion(body, motion);
    EXPECT_LT(*std::max_element(motion.begin(), motion.end(), [](float a, float b) { return std::abs(a) < std::abs(b); }),
              1e-6f);
}

TEST(WorldGeometry, DeformedNormalsAreTheAreaWeightedNormalsOfTheDeformedTriangles)
{
    SampleWorld world;
    btRigidBody* body = AddDeformedBody(world, test::TurnedShapeAsset("chair", 1500, 6));
    const std::vector<Vec3d> vertices = BruteForceVertices(*body);
    std::vector<Vec3d> sums(vertices.size(), Vec3d::Zero());
    for (const Triangle& t : World::Shape(body)->Asset().GetModel().Triangles())
    {
        const Vec3d n = (vertices[t[1]] - vertices[t[0]]).cross(vertices[t[2]] - vertices[t[0]]);
        for (std::uint32_t v : t)
            sums[v] += n;
    }
    std::vector<float> normals(3 * vertices.size());
    world.Deformables().DeformedNormals(body, normals);
    for (std::size_t i = 0; i < vertices.size(); ++i)
    {
        const Vec3d got(normals[3 * i], normals[3 * i + 1], normals[3 * i + 2]);
        ASSERT_NEAR(got.norm(), 1.0, 1e-6) << i;
        ASSERT_GT(got.dot(sums[i].normalized()), 1.0 - 1e-5) << i;
    }
}

// On a sphere at rest the normals point away from the centre, whatever the placement.
TEST(WorldGeometry, ASpheresNormalsPointOutward)
{
    SampleWorld world;
    BodySettings desc;
    desc.transform.setRotation(btQuaternion(btVector3(1, 0, 0), 2.0f));
    desc.transform.setOrigin(btVector3(1, 2, 3));
    btRigidBody* body = world.Deformables().CreateBody(test::ShapeAsset("sphere", 800, 4), desc);
    const std::size_t count = World::Shape(body)->Asset().GetModel().VertexCount();
    std::vector<float> xyz(3 * count), normals(3 * count);
    world.Deformables().DeformedVertices(body, xyz);
    world.Deformables().DeformedNormals(body, normals);
    const Vec3d centre = ToVec3d(body->getWorldTransform().getOrigin());
    for (std::size_t i = 0; i < count; ++i)
    {
        const Vec3d radial = (Vec3d(xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]) - centre).normalized();
        ASSERT_GT(radial.dot(Vec3d(normals[3 * i], normals[3 * i + 1], normals[3 * i + 2])), 0.99) << i;
    }
}

// Surface points name triangles in the order of the mesh the asset was built from: a corner of input triangle k is
// where that triangle's vertex is deformed. The point nearest a world point is the brute-force nearest one.
TEST(WorldGeometry, SurfacePointsUseTheInputMeshOrderAndAreTheNearest)
{
    ShapeMesh mesh = MakeShape(*ShapeFromName("chair"), 1500);
    const Model model = test::SmoothModel(mesh.positions, mesh.triangles, 6);
    const auto asset = DeformableAsset::Create(std::make_shared<const BDTree>(BDTree::Build(model)));
    SampleWorld world;
    btRigidBody* body = AddDeformedBody(world, asset);
    World& deformables = world.Deformables();
    const std::span<const std::uint32_t> order = asset->Tree().TriangleOrder();
    ASSERT_FALSE(std::is_sorted(order.begin(), order.end())) << "the tree keeps the input order: nothing to tell apart";
    const std::vector<Vec3d> vertices = BruteForceVertices(*body);
    for (std::uint32_t k = 0; k < model.TriangleCount(); k += 37)
        for (int corner = 0; corner < 3; ++corner)
        {
            SurfacePoint point;
            point.triangle = k;
            point.barycentric = btVector3(corner == 0, corner == 1, corner == 2);
            const Vec3d at = ToVec3d(deformables.SurfacePosition(body, point));
            ASSERT_LT((at - vertices[model.Triangles()[k][corner]]).norm(), 4e-6) << k << " " << corner;
        }
    std::mt19937 random(5);
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    const Vec3d centre = ToVec3d(body->getWorldTransform().getOrigin());
    for (int trial = 0; trial < 60; ++trial)
    {
        const Vec3d query = centre + (trial % 2 == 0 ? 0.3 : 1.2) * Vec3d(unit(random), unit(random), unit(random));
        double nearest = 1e300;
        for (const Triangle& t : model.Triangles())
        {
            const Vec3d corners[3] = {vertices[t[0]], vertices[t[1]], vertices[t[2]]};
            nearest = std::min(nearest, (ClosestPointOnTriangle(query, corners) - query).norm());
        }
        const SurfacePoint point =
            deformables.ClosestSurfacePoint(body, btVector3(btScalar(query.x()), btScalar(query.y()), btScalar(query.z())));
        ASSERT_LT(point.triangle, model.TriangleCount());
        const Vec3d at = ToVec3d(deformables.SurfacePosition(body, point));
        EXPECT_NEAR((at - query).norm(), nearest, 1e-5) << trial;
    }
}

TEST(WorldGeometry, NullForeignBodiesAndWrongSizesThrowAndWriteNothing)
{
    SampleWorld world, other;
    btRigidBody* body = world.Deformables().CreateBody(test::ShapeAsset("box", 300, 4), BodySettings{});
    btRigidBody* foreign = other.Deformables().CreateBody(test::ShapeAsset("box", 300, 4), BodySettings{});
    btRigidBody* crate = world.AddRigid(std::make_unique<btBoxShape>(btVector3(1, 1, 1)), btTransform::getIdentity(), 1.0);
    const std::size_t count = World::Shape(body)->Asset().GetModel().VertexCount();
    World& deformables = world.Deformables();
    for (btRigidBody* bad : {static_cast<btRigidBody*>(nullptr), foreign, crate})
    {
        std::vector<float> out(3 * count, 7.0f);
        EXPECT_THROW(deformables.MeshTransform(bad), Error);
        EXPECT_THROW(deformables.DeformedVertices(bad, out), Error);
        EXPECT_THROW(deformables.DeformedNormals(bad, out), Error);
        EXPECT_THROW(deformables.VertexMotion(bad, out), Error);
        EXPECT_THROW(deformables.PreviousMeshTransform(bad), Error);
        EXPECT_THROW(deformables.PreviousQ(bad), Error);
        EXPECT_EQ(out, std::vector<float>(3 * count, 7.0f));
    }
    for (btRigidBody* bad : {static_cast<btRigidBody*>(nullptr), foreign, crate})
    {
        EXPECT_THROW(deformables.ClosestSurfacePoint(bad, btVector3(0, 0, 0)), Error);
        EXPECT_THROW(deformables.SurfacePosition(bad, SurfacePoint{0, btVector3(1, 0, 0)}), Error);
    }
    const btScalar nan = std::numeric_limits<btScalar>::quiet_NaN();
    EXPECT_THROW(deformables.ClosestSurfacePoint(body, btVector3(nan, 0, 0)), Error);
    const std::uint32_t triangles = World::Shape(body)->Asset().GetModel().TriangleCount();
    for (const SurfacePoint& bad : {SurfacePoint{triangles, btVector3(1, 0, 0)}, SurfacePoint{cNoIndex, btVector3(1, 0, 0)},
                                    SurfacePoint{0, btVector3(nan, 0, 1)}, SurfacePoint{0, btVector3(0.5f, 0.6f, 0)},
                                    SurfacePoint{0, btVector3(-0.5f, 1, 0.5f)}})
        EXPECT_THROW(deformables.SurfacePosition(body, bad), Error) << bad.triangle;
    for (const std::size_t size : {std::size_t(0), 3 * count - 1, 3 * count + 3})
    {
        std::vector<float> out(size, 7.0f);
        EXPECT_THROW(deformables.DeformedVertices(body, out), Error) << size;
        EXPECT_THROW(deformables.DeformedNormals(body, out), Error) << size;
        EXPECT_THROW(deformables.VertexMotion(body, out), Error) << size;
        EXPECT_EQ(out, std::vector<float>(size, 7.0f));
    }
}

} // namespace
} // namespace bdt
