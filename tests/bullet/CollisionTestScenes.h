#pragma once

// Scenes and brute-force oracles shared by the narrowphase tests: a deformable test body, the other shapes
// of Bullet it collides with, and exact distances computed independently of the code under test.

#include <BulletCollision/CollisionDispatch/btCollisionObject.h>
#include <BulletCollision/CollisionShapes/btCollisionShape.h>
#include <BulletCollision/CollisionShapes/btTriangleMesh.h>
#include <array>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/base/Math.h>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace bdt::test::collision
{

/// A subdivided unit box (about 400 triangles) with 4 smooth modes; built once per process.
std::shared_ptr<const DeformableAsset> BoxAsset();

/// A deformable collision object of `BoxAsset`: proxy level 5, the given region settings, margin and contact
/// model (the proxies model by default: most narrowphase tests check proxy contacts against their spheres).
struct DeformableObject
{
    /// `inPieceTolerance` < 0: the default (`DeformableShapeSettings::pieceTolerance`).
    explicit DeformableObject(double inMargin = 0.0, std::uint32_t inRegionDepth = 3,
                              std::uint32_t inMaxManifolds = 8, EContactModel inContacts = EContactModel::Proxies,
                              double inPieceTolerance = -1.0);

    /// Random q, entries up to `inAmplitude` (model units), and a new step.
    void RandomQ(std::mt19937& ioRandom, double inAmplitude);

    std::unique_ptr<DeformableShape> shape;
    btCollisionObject object;
};

/// A proxy's contact sphere in world: its updated centre, its rest radius, no inflation.
struct WorldProxy
{
    Vec3d center;
    double radius;
    std::uint32_t node;
};

/// Every proxy sphere of `inShape` placed by `inTransform` (its state's current q).
std::vector<WorldProxy> WorldProxies(const DeformableShape& inShape, const btTransform& inTransform);

/// A uniformly random rotation with its origin uniform in the cube [−inRange, inRange]³.
btTransform RandomTransform(std::mt19937& ioRandom, double inRange);
Vec3d RandomUnit(std::mt19937& ioRandom);

using Tri = std::array<Vec3d, 3>;

/// Unsigned distance from a point to a closed triangle, by projection and edges (not the library's code).
double PointTriangleDistance(const Vec3d& inPoint, const Tri& inTriangle);
/// Signed distance from a point to a solid box of half extents `inHalf` centred at the origin.
double BoxDistance(const Vec3d& inPoint, const Vec3d& inHalf);
/// Distance from a point to the segment [inA, inB].
double SegmentDistance(const Vec3d& inPoint, const Vec3d& inA, const Vec3d& inB);

/// A non-deformable Bullet shape with an exact signed distance to its collision surface (Bullet's margin
/// included: the surface GJK and Bullet's own algorithms collide with).
struct OtherShape
{
    std::string name;
    std::unique_ptr<btCollisionShape> shape;
    std::vector<std::unique_ptr<btCollisionShape>> children; // compound children, the scaled mesh's mesh
    std::unique_ptr<btTriangleMesh> mesh;
    std::vector<float> heights;
    std::vector<Tri> triangles; ///< A triangle mesh's or heightfield's triangles, in its local frame.
    bool infinite = false; ///< Static plane: placed by its normal, not by its box.
    /// Accuracy expected of the narrowphase's distances and points against this shape.
    double tolerance = 1e-4;
    /// Signed distance in the shape's local frame (unsigned minus margin for triangle meshes).
    std::function<double(const Vec3d&)> localDistance;
    /// For a compound: each child's signed distance in the child's frame.
    std::vector<std::function<double(const Vec3d&)>> childDistances;

    double Distance(const btTransform& inTransform, const Vec3d& inWorld) const;
};

/// The shapes of the narrowphase tests by name: "sphere", "box", "capsuleX", "capsuleY", "capsuleZ",
/// "cylinder", "cone", "hull", "plane", "mesh" (btBvhTriangleMeshShape), "scaledMesh"
/// (btScaledBvhTriangleMeshShape of it), "heightfield", "compound" (box and sphere).
OtherShape MakeOtherShape(const std::string& inName);

} // namespace bdt::test::collision
