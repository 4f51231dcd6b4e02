// BodySettings::transform places the mesh as it was modelled: right after creation `MeshTransform` is the transform
// given and every rest vertex p is at transform · (s·p) (brute force over the vertices); `MeshFromPrincipal` is
// its inverse for placing by the centre of mass; a chair and a slab placed with an identity rotation come to rest
// as modelled (the chair on its legs, the slab flat), the way a user of the README's snippet expects.
#include "support/BulletScenes.h"

#include <bdt/samples/SampleWorld.h>
#include <bdt/adapter/World.h>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/model/Model.h>
#include <btBulletDynamicsCommon.h>
#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <vector>

namespace bdt
{
namespace
{

constexpr double cStep = 1.0 / 60.0;

/// Largest distance between the rest vertices as `World::DeformedVertices` gives them (q = 0) and as
/// `inPlacement` · (s·p) puts them, brute force in double over every vertex.
double RestVertexError(World& ioWorld, const btRigidBody* inBody, const btTransform& inPlacement, double inScale)
{
    const Model& model = World::Shape(const_cast<btRigidBody*>(inBody))->Asset().GetModel();
    std::vector<float> xyz(3 * model.VertexCount());
    ioWorld.DeformedVertices(inBody, xyz);
    const Mat3d basis = ToMat3d(inPlacement.getBasis());
    const Vec3d origin = ToVec3d(inPlacement.getOrigin());
    double largest = 0.0;
    for (std::size_t i = 0; i < model.VertexCount(); ++i)
    {
        const Vec3d expected = basis * (inScale * model.Positions()[i].cast<double>()) + origin;
        largest = std::max(largest, (Vec3d(xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]) - expected).norm());
    }
    return largest;
}

/// Angle (radians) between two placements' bases: that of the rotation taking one to the other.
double BasisAngle(const btTransform& inA, const btTransform& inB)
{
    const Mat3d relative = ToMat3d(inA.getBasis()).transpose() * ToMat3d(inB.getBasis());
    return std::acos(std::clamp(0.5 * (relative.trace() - 1.0), -1.0, 1.0));
}

// Turned and scaled: a chair whose principal axes are not its mesh axes (TurnedShapeAsset) and a slab whose
// principal axes are a permutation of them.
TEST(WorldPlacement, TheDescTransformPlacesTheMeshAsModelled)
{
    for (const auto& asset : {test::TurnedShapeAsset("chair", 1500, 6), test::ShapeAsset("slab", 800, 4)})
    {
        SampleWorld world;
        BodySettings desc;
        desc.scale = 1.7;
        desc.transform = btTransform(btQuaternion(btVector3(0.3f, 1.0f, -0.2f).normalized(), 0.9f),
                                     btVector3(0.4f, 3.0f, -0.7f));
        btRigidBody* body = world.Deformables().CreateBody(asset, desc);
        const btTransform mesh = world.Deformables().MeshTransform(body);
        EXPECT_LT(BasisAngle(mesh, desc.transform), 1e-5);
        EXPECT_LT((ToVec3d(mesh.getOrigin()) - ToVec3d(desc.transform.getOrigin())).norm(), 1e-5);
        // Vertices a few metres out, in float.
        EXPECT_LT(RestVertexError(world.Deformables(), body, desc.transform, desc.scale), 4e-6);
        // Bullet's transform is the principal frame: its origin the scaled centre of mass, placed.
        const Vec3d centre = ToVec3d(desc.transform(ToBtVector(desc.scale * asset->Mass().centerOfMass)));
        EXPECT_LT((ToVec3d(body->getWorldTransform().getOrigin()) - centre).norm(), 1e-5);
    }
}

TEST(WorldPlacement, MeshFromPrincipalPlacesTheCentreOfMassAndPrincipalAxes)
{
    const auto asset = test::TurnedShapeAsset("chair", 1500, 6);
    SampleWorld world;
    const btTransform principal(btQuaternion(btVector3(-0.5f, 0.2f, 1.0f).normalized(), 2.1f),
                                btVector3(-1.0f, 2.0f, 0.5f));
    BodySettings desc;
    desc.scale = 0.8;
    desc.transform = MeshFromPrincipal(*asset, desc.scale, principal);
    btRigidBody* body = world.Deformables().CreateBody(asset, desc);
    EXPECT_LT(BasisAngle(body->getWorldTransform(), principal), 1e-5);
    EXPECT_LT((ToVec3d(body->getWorldTransform().getOrigin()) - ToVec3d(principal.getOrigin())).norm(), 1e-5);
    EXPECT_LT(RestVertexError(world.Deformables(), body, desc.transform, desc.scale), 4e-6);
}

// The README's snippet in a test: an identity rotation drops the chair on its legs and it stays upright (its
// modelled up, the seat's normal, within 5° of +y); a slab so placed lands flat (its thickness, 0.1 m, is its
// height above the ground).
TEST(WorldPlacement, AChairAndASlabPlacedUnturnedRestAsModelled)
{
    SampleWorld world;
    world.AddGroundPlane();
    BodySettings desc;
    desc.mass = 4.0;
    desc.transform.setOrigin(btVector3(0, 1, 0));
    btRigidBody* chair = world.Deformables().CreateBody(test::ShapeAsset("chair", 3000, 10), desc);
    desc.transform.setOrigin(btVector3(3, 0.5f, 0));
    btRigidBody* slab = world.Deformables().CreateBody(test::ShapeAsset("slab", 800, 4), desc);
    world.Step(180, cStep);
    for (btRigidBody* body : {chair, slab})
    {
        const btTransform mesh = world.Deformables().MeshTransform(body);
        EXPECT_GT(double(mesh.getBasis().getColumn(1).y()), std::cos(5.0 * M_PI / 180.0));
        const Model& model = World::Shape(body)->Asset().GetModel();
        std::vector<float> xyz(3 * model.VertexCount());
        world.Deformables().DeformedVertices(body, xyz);
        float lowest = 1e9f, highest = -1e9f;
        for (std::size_t i = 0; i < model.VertexCount(); ++i)
        {
            lowest = std::min(lowest, xyz[3 * i + 1]);
            highest = std::max(highest, xyz[3 * i + 1]);
        }
        EXPECT_NEAR(lowest, 0.0f, 0.005f);
        EXPECT_NEAR(highest - lowest, body == chair ? 0.9f : 0.1f, 0.01f);
    }
}

} // namespace
} // namespace bdt
