#include "BulletScenes.h"

#include "TestModels.h"

#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <bdt/adapter/World.h>
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

Vec3d DeformedVertexWorld(btRigidBody& inBody, std::size_t inVertex)
{
    const DeformableShape& shape = *World::Shape(&inBody);
    const Model& model = shape.Asset().GetModel();
    const DeformedBody view = shape.Body(inBody.getWorldTransform());
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

} // namespace bdt::test
