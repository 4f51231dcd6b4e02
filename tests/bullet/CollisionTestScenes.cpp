#include "CollisionTestScenes.h"

#include "support/QueryOracles.h"
#include "support/TestModels.h"

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btBvhTriangleMeshShape.h>
#include <BulletCollision/CollisionShapes/btCapsuleShape.h>
#include <BulletCollision/CollisionShapes/btCompoundShape.h>
#include <BulletCollision/CollisionShapes/btConeShape.h>
#include <BulletCollision/CollisionShapes/btConvexHullShape.h>
#include <BulletCollision/CollisionShapes/btCylinderShape.h>
#include <BulletCollision/CollisionShapes/btHeightfieldTerrainShape.h>
#include <BulletCollision/CollisionShapes/btScaledBvhTriangleMeshShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/CollisionShapes/btStaticPlaneShape.h>
#include <BulletCollision/CollisionShapes/btTriangleCallback.h>
#include <algorithm>
#include <bdt/bullet/Conversions.h>
#include <bdt/core/asset/DeformableAsset.h>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace bdt::test::collision
{

namespace
{

// Signed distance in a meridian half-plane (rho ≥ 0, y) to a region symmetric about the axis, given as a
// convex polygon (counter-clockwise, mirrored so that the axis is inside): a solid of revolution's distance.
double ConvexPolygonDistance(const Vec3d& inPoint2, const std::vector<Vec3d>& inPolygon)
{
    double nearest = std::numeric_limits<double>::infinity();
    bool inside = true;
    for (std::size_t i = 0; i < inPolygon.size(); ++i)
    {
        const Vec3d& a = inPolygon[i];
        const Vec3d& b = inPolygon[(i + 1) % inPolygon.size()];
        nearest = std::min(nearest, SegmentDistance(inPoint2, a, b));
        const Vec3d edge = b - a;
        const Vec3d toPoint = inPoint2 - a;
        if (edge.x() * toPoint.y() - edge.y() * toPoint.x() < 0.0)
            inside = false;
    }
    return inside ? -nearest : nearest;
}

Vec3d Meridian(const Vec3d& inLocal, int inUpAxis)
{
    const double up = inLocal[inUpAxis];
    const double rho = std::sqrt(std::max(0.0, inLocal.squaredNorm() - up * up));
    return {rho, up, 0.0};
}

class CollectTriangles : public btTriangleCallback
{
public:
    explicit CollectTriangles(std::vector<Tri>& outTriangles) : mTriangles(outTriangles) {}
    void processTriangle(btVector3* inTriangle, int, int) override
    {
        mTriangles.push_back({ToVec3d(inTriangle[0]), ToVec3d(inTriangle[1]), ToVec3d(inTriangle[2])});
    }

private:
    std::vector<Tri>& mTriangles;
};

std::function<double(const Vec3d&)> MeshDistance(const btConcaveShape& inShape, std::vector<Tri>& outTriangles)
{
    auto triangles = std::make_shared<std::vector<Tri>>();
    CollectTriangles collect(*triangles);
    const btScalar big = btScalar(1e6);
    inShape.processAllTriangles(&collect, btVector3(-big, -big, -big), btVector3(big, big, big));
    const double margin = inShape.getMargin();
    outTriangles = *triangles;
    return [triangles, margin](const Vec3d& inPoint)
    {
        double nearest = std::numeric_limits<double>::infinity();
        for (const Tri& triangle : *triangles)
            nearest = std::min(nearest, PointTriangleDistance(inPoint, triangle));
        return nearest - margin;
    };
}

} // namespace

// Bullet's GJK stops within about 2e-3 of the distance to a curved convex (cylinder, cone) in single
// precision (measured over thousands of sphere placements; about 5e-6 in double): its accuracy, not ours.
constexpr double cCurvedGjkTolerance = sizeof(btScalar) == sizeof(float) ? 3e-3 : 1e-4;

std::shared_ptr<const DeformableAsset> BoxAsset()
{
    static const std::shared_ptr<const DeformableAsset> sAsset =
        DeformableAsset::Create(ShapeTree("box", 400, 4));
    return sAsset;
}

DeformableObject::DeformableObject(double inMargin, std::uint32_t inRegionDepth, std::uint32_t inMaxManifolds,
                                   EContactModel inContacts, double inPieceTolerance)
{
    DeformableShapeSettings settings;
    if (inPieceTolerance >= 0.0)
        settings.pieceTolerance = inPieceTolerance;
    settings.proxyLevel = 5;
    settings.contactModel = inContacts;
    settings.regionDepth = inRegionDepth;
    settings.maxManifoldsPerPair = inMaxManifolds;
    shape = std::make_unique<DeformableShape>(BoxAsset(), settings);
    shape->setMargin(btScalar(inMargin));
    object.setCollisionShape(shape.get());
}

void DeformableObject::RandomQ(std::mt19937& ioRandom, double inAmplitude)
{
    const std::vector<float> q = test::RandomQ(shape->State().ModeCount(), inAmplitude, ioRandom);
    if (!shape->SetQ(q))
        throw std::runtime_error("SetQ rejected a test q");
}

std::vector<WorldProxy> WorldProxies(const DeformableShape& inShape, const btTransform& inTransform)
{
    const DeformedBody body = inShape.QueryView(inTransform, 0.0);
    std::vector<WorldProxy> proxies;
    for (std::uint32_t node : ProxyNodes(body.state->Proxies()))
    {
        const UpdatedSphere sphere = body.state->Sphere(node);
        const Vec3d center(sphere.center[0], sphere.center[1], sphere.center[2]);
        // The contact sphere: the updated centre at the rest radius (the radius growth is a culling bound).
        const double restRadius = double(body.state->Proxies().Row(node)[3]);
        proxies.push_back({body.pose.Apply(body.scale * center), body.scale * restRadius, node});
    }
    return proxies;
}

Vec3d RandomUnit(std::mt19937& ioRandom)
{
    return RandomDirection(ioRandom);
}

btTransform RandomTransform(std::mt19937& ioRandom, double inRange)
{
    const Eigen::Quaterniond rotation(RandomRotation(ioRandom));
    btTransform transform;
    transform.setRotation(btQuaternion(btScalar(rotation.x()), btScalar(rotation.y()), btScalar(rotation.z()),
                                       btScalar(rotation.w())));
    transform.setOrigin(ToBtVector(RandomPoint(ioRandom, inRange)));
    return transform;
}

double PointTriangleDistance(const Vec3d& inPoint, const Tri& inTriangle)
{
    const Vec3d& a = inTriangle[0];
    const Vec3d& b = inTriangle[1];
    const Vec3d& c = inTriangle[2];
    const Vec3d normal = (b - a).cross(c - a);
    const double area2 = normal.squaredNorm();
    if (area2 > 0.0)
    {
        const Vec3d projected = inPoint - normal * (normal.dot(inPoint - a) / area2);
        const double u = (c - b).cross(projected - b).dot(normal);
        const double v = (a - c).cross(projected - c).dot(normal);
        const double w = (b - a).cross(projected - a).dot(normal);
        if (u >= 0.0 && v >= 0.0 && w >= 0.0)
            return (inPoint - projected).norm();
    }
    return std::min(
        {SegmentDistance(inPoint, a, b), SegmentDistance(inPoint, b, c), SegmentDistance(inPoint, c, a)});
}

double BoxDistance(const Vec3d& inPoint, const Vec3d& inHalf)
{
    const Vec3d q = inPoint.cwiseAbs() - inHalf;
    return q.cwiseMax(0.0).norm() + std::min(q.maxCoeff(), 0.0);
}

double SegmentDistance(const Vec3d& inPoint, const Vec3d& inA, const Vec3d& inB)
{
    const Vec3d ab = inB - inA;
    const double length2 = ab.squaredNorm();
    const double t = length2 > 0.0 ? std::clamp((inPoint - inA).dot(ab) / length2, 0.0, 1.0) : 0.0;
    return (inPoint - (inA + t * ab)).norm();
}

double OtherShape::Distance(const btTransform& inTransform, const Vec3d& inWorld) const
{
    return localDistance(ToVec3d(inTransform.invXform(ToBtVector(inWorld))));
}

OtherShape MakeOtherShape(const std::string& inName)
{
    OtherShape other;
    other.name = inName;
    if (inName == "sphere")
    {
        other.shape = std::make_unique<btSphereShape>(btScalar(0.3));
        other.localDistance = [](const Vec3d& inP) { return inP.norm() - 0.3; };
    }
    else if (inName == "box")
    {
        const Vec3d half(0.3, 0.2, 0.4);
        other.shape = std::make_unique<btBoxShape>(ToBtVector(half));
        other.localDistance = [half](const Vec3d& inP) { return BoxDistance(inP, half); };
    }
    else if (inName == "capsuleX" || inName == "capsuleY" || inName == "capsuleZ")
    {
        const int axis = inName.back() - 'X';
        const double radius = 0.15;
        const double halfHeight = 0.25;
        if (axis == 0)
            other.shape = std::make_unique<btCapsuleShapeX>(btScalar(radius), btScalar(2 * halfHeight));
        else if (axis == 1)
            other.shape = std::make_unique<btCapsuleShape>(btScalar(radius), btScalar(2 * halfHeight));
        else
            other.shape = std::make_unique<btCapsuleShapeZ>(btScalar(radius), btScalar(2 * halfHeight));
        const Vec3d end = halfHeight * Vec3d::Unit(axis);
        other.localDistance = [end, radius](const Vec3d& inP)
        { return SegmentDistance(inP, -end, end) - radius; };
    }
    else if (inName == "cylinder")
    {
        other.shape = std::make_unique<btCylinderShape>(btVector3(0.25, 0.3, 0.25));
        // Bullet's cylinder: a core shrunk by the margin in every direction, grown back by it (round edges).
        const double m = other.shape->getMargin();
        const std::vector<Vec3d> core = {{-(0.25 - m), -(0.3 - m), 0},
                                         {0.25 - m, -(0.3 - m), 0},
                                         {0.25 - m, 0.3 - m, 0},
                                         {-(0.25 - m), 0.3 - m, 0}};
        other.localDistance = [core, m](const Vec3d& inP)
        { return ConvexPolygonDistance(Meridian(inP, 1), core) - m; };
        other.tolerance = cCurvedGjkTolerance;
    }
    else if (inName == "cone")
    {
        other.shape = std::make_unique<btConeShape>(btScalar(0.3), btScalar(0.6));
        // Bullet's cone: the exact cone (apex at +height/2) grown by the margin.
        const double m = other.shape->getMargin();
        const std::vector<Vec3d> core = {{-0.3, -0.3, 0}, {0.3, -0.3, 0}, {0.0, 0.3, 0}};
        other.localDistance = [core, m](const Vec3d& inP)
        { return ConvexPolygonDistance(Meridian(inP, 1), core) - m; };
        other.tolerance = cCurvedGjkTolerance;
    }
    else if (inName == "hull")
    {
        const Vec3d half(0.25, 0.15, 0.35);
        auto hull = std::make_unique<btConvexHullShape>();
        for (int corner = 0; corner < 8; ++corner)
            hull->addPoint(btVector3(btScalar((corner & 1) ? half.x() : -half.x()),
                                     btScalar((corner & 2) ? half.y() : -half.y()),
                                     btScalar((corner & 4) ? half.z() : -half.z())));
        const double m = hull->getMargin();
        other.shape = std::move(hull);
        other.localDistance = [half, m](const Vec3d& inP) { return BoxDistance(inP, half) - m; };
    }
    else if (inName == "plane")
    {
        other.shape = std::make_unique<btStaticPlaneShape>(btVector3(0, 1, 0), btScalar(0.1));
        other.infinite = true;
        other.localDistance = [](const Vec3d& inP) { return inP.y() - 0.1; };
    }
    else if (inName == "mesh" || inName == "scaledMesh")
    {
        other.mesh = std::make_unique<btTriangleMesh>();
        std::mt19937 random(7);
        const int n = 9;
        std::vector<btVector3> grid;
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j)
            {
                const double x = -2.0 + 4.0 * i / (n - 1);
                const double z = -2.0 + 4.0 * j / (n - 1);
                const double y = 0.15 * std::sin(1.3 * x) * std::cos(1.1 * z) + Uniform(random, -0.05, 0.05);
                grid.emplace_back(btScalar(x), btScalar(y), btScalar(z));
            }
        for (int i = 0; i + 1 < n; ++i)
            for (int j = 0; j + 1 < n; ++j)
            {
                const int v = i * n + j;
                other.mesh->addTriangle(grid[v], grid[v + 1], grid[v + n]);
                other.mesh->addTriangle(grid[v + 1], grid[v + n + 1], grid[v + n]);
            }
        auto shape = std::make_unique<btBvhTriangleMeshShape>(other.mesh.get(), true);
        if (inName == "scaledMesh")
        {
            auto scaled =
                std::make_unique<btScaledBvhTriangleMeshShape>(shape.get(), btVector3(1.25, 0.8, 0.9));
            other.children.push_back(std::move(shape));
            other.localDistance = MeshDistance(*scaled, other.triangles);
            other.shape = std::move(scaled);
        }
        else
        {
            other.localDistance = MeshDistance(*shape, other.triangles);
            other.shape = std::move(shape);
        }
    }
    else if (inName == "heightfield")
    {
        std::mt19937 random(11);
        const int n = 9;
        for (int i = 0; i < n * n; ++i)
            other.heights.push_back(float(Uniform(random, -0.2, 0.2)));
        auto shape = std::make_unique<btHeightfieldTerrainShape>(n, n, other.heights.data(), btScalar(-0.2),
                                                                 btScalar(0.2), 1, false);
        shape->setLocalScaling(btVector3(0.5, 1.0, 0.5));
        other.localDistance = MeshDistance(*shape, other.triangles);
        other.shape = std::move(shape);
    }
    else if (inName == "compound")
    {
        auto compound = std::make_unique<btCompoundShape>();
        const Vec3d half(0.2, 0.15, 0.2);
        other.children.push_back(std::make_unique<btBoxShape>(ToBtVector(half)));
        other.children.push_back(std::make_unique<btSphereShape>(btScalar(0.2)));
        btTransform boxPose(btQuaternion(btVector3(0, 0, 1), btScalar(0.4)), btVector3(-0.25, 0, 0));
        btTransform spherePose(btQuaternion::getIdentity(), btVector3(0.25, 0.1, 0));
        compound->addChildShape(boxPose, other.children[0].get());
        compound->addChildShape(spherePose, other.children[1].get());
        other.shape = std::move(compound);
        other.childDistances = {[half](const Vec3d& inP) { return BoxDistance(inP, half); },
                                [](const Vec3d& inP) { return inP.norm() - 0.2; }};
        other.localDistance = [boxPose, spherePose, half](const Vec3d& inP)
        {
            const Vec3d inBox = ToVec3d(boxPose.invXform(ToBtVector(inP)));
            const Vec3d inSphere = ToVec3d(spherePose.invXform(ToBtVector(inP)));
            return std::min(BoxDistance(inBox, half), inSphere.norm() - 0.2);
        };
    }
    else
        throw std::invalid_argument("unknown test shape " + inName);
    return other;
}

} // namespace bdt::test::collision
