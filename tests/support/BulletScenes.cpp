#include "BulletScenes.h"

#include "TestModels.h"

#include "bullet/ShapeSolver.h"

#include <BulletCollision/CollisionDispatch/btCollisionObjectWrapper.h>
#include <BulletCollision/CollisionDispatch/btCollisionWorld.h>
#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <bdt/samples/Scenes.h>
#include <bdt/adapter/World.h>
#include <bdt/bake/ModalBasis.h>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/bounds/BDTree.h>
#include <bdt/core/model/ProceduralShapes.h>
#include <map>
#include <tuple>

namespace bdt::test
{

std::shared_ptr<const DeformableAsset> ShapeAsset(const std::string& inShape, std::uint32_t inTriangles,
                                                  std::uint32_t inModes)
{
    static std::map<std::tuple<std::string, std::uint32_t, std::uint32_t>,
                    std::shared_ptr<const DeformableAsset>>
        cache;
    auto& asset = cache[{inShape, inTriangles, inModes}];
    if (!asset)
        asset = DeformableAsset::Create(ShapeTree(inShape.c_str(), inTriangles, inModes));
    return asset;
}

std::shared_ptr<const DeformableAsset> ModalShapeAsset(const std::string& inShape, std::uint32_t inTriangles,
                                                       std::uint32_t inModes, double inYoung)
{
    static std::map<std::tuple<std::string, std::uint32_t, std::uint32_t, double>,
                    std::shared_ptr<const DeformableAsset>>
        cache;
    auto& asset = cache[{inShape, inTriangles, inModes, inYoung}];
    if (!asset)
    {
        ShapeMesh mesh = MakeShape(*ShapeFromName(inShape), inTriangles);
        ModalBakeSettings bake;
        bake.modes = inModes;
        bake.material = {inYoung, 0.4, 1000};
        bake.factorisation = EFactorisation::Reproducible; // the tests' physics the same on every CPU
        asset = DeformableAsset::Create(std::make_shared<const BDTree>(
            BDTree::Build(MakeModalModel(std::move(mesh.positions), std::move(mesh.triangles), bake))));
    }
    return asset;
}

std::shared_ptr<const DeformableAsset> BridgePlankAsset()
{
    static const std::shared_ptr<const DeformableAsset> asset = []
    {
        ShapeMesh mesh = BridgePlankMesh(3000);
        ModalBakeSettings bake;
        bake.modes = 12;
        bake.material = {3e8, 0.4, 200};
        bake.factorisation = EFactorisation::Reproducible;
        return DeformableAsset::Create(std::make_shared<const BDTree>(
            BDTree::Build(MakeModalModel(std::move(mesh.positions), std::move(mesh.triangles), bake))));
    }();
    return asset;
}

std::shared_ptr<const DeformableAsset> TurnedShapeAsset(const char* inShape, std::uint32_t inTriangles,
                                                        std::uint32_t inModes)
{
    ShapeMesh mesh = MakeShape(*ShapeFromName(inShape), inTriangles);
    const Eigen::Matrix3f turn =
        Eigen::AngleAxisf(0.7f, Eigen::Vector3f(1.0f, 2.0f, -0.5f).normalized()).toRotationMatrix();
    for (Vec3f& position : mesh.positions)
        position = turn * position;
    Model model = SmoothModel(std::move(mesh.positions), std::move(mesh.triangles), inModes);
    return DeformableAsset::Create(std::make_shared<const BDTree>(BDTree::Build(model)));
}

std::vector<btRigidBody*> AddChairPile(SampleWorld& ioWorld, std::uint32_t inCount, std::uint32_t inLayers)
{
    PileSettings pile;
    pile.count = inCount;
    pile.layers = inLayers;
    pile.spacing = 0.8;
    pile.body.proxyLevel = 7;
    return AddPile(ioWorld, ShapeAsset("chair", 3000, 10), pile);
}

btQuaternion RandomQuaternion(std::mt19937& ioRandom)
{
    std::normal_distribution<double> normal;
    btQuaternion rotation(btScalar(normal(ioRandom)), btScalar(normal(ioRandom)), btScalar(normal(ioRandom)),
                          btScalar(normal(ioRandom)));
    return rotation.normalized();
}

Vec3d DeformedVertexWorld(btRigidBody& inBody, std::size_t inVertex)
{
    const DeformableShape& shape = *World::Shape(&inBody);
    const Model& model = shape.Asset().GetModel();
    const DeformedBody view = shape.QueryView(inBody.getWorldTransform());
    return view.pose.Apply(view.scale * model.DeformedPosition(inVertex, shape.State().Q()));
}

double LowestVertexHeight(btRigidBody& inBody)
{
    const Model& model = World::Shape(&inBody)->Asset().GetModel();
    double lowest = 1e300;
    for (std::size_t i = 0; i < model.VertexCount(); ++i)
        lowest = std::min(lowest, DeformedVertexWorld(inBody, i).y());
    return lowest;
}

double DeepestOverlap(SampleWorld& ioWorld, std::span<btRigidBody* const> inBodies, int* outNear)
{
    struct Deepest : btCollisionWorld::ContactResultCallback
    {
        double deepest = 0.0;
        int points = 0;
        btScalar addSingleResult(btManifoldPoint& ioPoint, const btCollisionObjectWrapper*, int, int,
                                 const btCollisionObjectWrapper*, int, int) override
        {
            deepest = std::min(deepest, double(ioPoint.getDistance()));
            ++points;
            return 0;
        }
    } deepest;
    deepest.m_closestDistanceThreshold = 0.01f;
    for (std::size_t i = 0; i < inBodies.size(); ++i)
        for (std::size_t j = i + 1; j < inBodies.size(); ++j)
            ioWorld.Dynamics().contactPairTest(inBodies[i], inBodies[j], deepest);
    if (outNear != nullptr)
        *outNear = deepest.points;
    return deepest.deepest;
}

double MaxPointSpeed(btRigidBody& inBody)
{
    const DeformableShape& shape = *World::Shape(&inBody);
    const Model& model = shape.Asset().GetModel();
    const double scale = double(shape.getLocalScaling().x());
    const Vec3d com = shape.Asset().Mass().centerOfMass;
    double reach = 0.0, modal = 0.0;
    const auto qDot = shape.Dynamics().QDot();
    for (std::size_t i = 0; i < model.VertexCount(); ++i)
    {
        reach = std::max(reach, scale * (model.Positions()[i].cast<double>() - com).norm());
        Vec3d velocity = Vec3d::Zero();
        for (std::uint32_t j = 0; j < model.ModeCount(); ++j)
            velocity += model.BasisVector(i, j).cast<double>() * qDot[j];
        modal = std::max(modal, scale * velocity.norm());
    }
    return double(inBody.getLinearVelocity().length()) +
           double(inBody.getAngularVelocity().length()) * reach + modal;
}

std::vector<double> RawBodyState(std::span<btRigidBody* const> inBodies)
{
    std::vector<double> state;
    for (btRigidBody* body : inBodies)
    {
        const btTransform& t = body->getWorldTransform();
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c)
                state.push_back(double(t.getBasis()[r][c]));
        for (int k = 0; k < 3; ++k)
        {
            state.push_back(double(t.getOrigin()[k]));
            state.push_back(double(body->getLinearVelocity()[k]));
            state.push_back(double(body->getAngularVelocity()[k]));
        }
        if (const DeformableShape* shape = World::Shape(body))
            for (double q : shape->Dynamics().QDouble())
                state.push_back(q);
    }
    return state;
}

std::vector<double> PendingImpulse(const DeformableShape& inShape)
{
    const std::span<const double> pending = ShapeSolver::Of(inShape).PendingImpulse();
    return {pending.begin(), pending.end()};
}

} // namespace bdt::test
