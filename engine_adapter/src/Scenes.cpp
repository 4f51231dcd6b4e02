#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <bdt/adapter/Scenes.h>
#include <bdt/core/Error.h>
#include <cmath>
#include <random>

namespace bdt
{

std::vector<btTransform> PileTransforms(const DeformableAsset& inAsset, const PileSettings& inSettings)
{
    if (inSettings.layers == 0 || !(inSettings.spacing > 0.0) || !std::isfinite(inSettings.spacing) ||
        !std::isfinite(inSettings.dropHeight) || !std::isfinite(inSettings.maxTiltRadians))
        throw Error("pile: layers must be >= 1 and spacing, drop height and tilt finite (spacing > 0)");
    // The local frame's origin is the centre of mass; the bounding sphere of the root, about the centre of
    // mass, bounds the body in any orientation.
    const Vec3d center = inAsset.Mass().centerOfMass;
    const BDTree& tree = inAsset.Tree();
    const float* root = tree.Row(0);
    const double reach =
        inSettings.body.scale * ((Vec3d(root[0], root[1], root[2]) - center).norm() + double(root[3]));
    const double cell = 2.0 * reach * inSettings.spacing;
    const std::uint32_t perLayer = (inSettings.count + inSettings.layers - 1) / inSettings.layers;
    const std::uint32_t side =
        std::max<std::uint32_t>(1, std::uint32_t(std::ceil(std::sqrt(double(perLayer)))));

    std::mt19937 random(inSettings.seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<btTransform> transforms;
    transforms.reserve(inSettings.count);
    for (std::uint32_t i = 0; i < inSettings.count; ++i)
    {
        const std::uint32_t layer = i / (side * side);
        const std::uint32_t inLayer = i % (side * side);
        const double x = (double(inLayer % side) - 0.5 * double(side - 1)) * cell;
        const double z = (double(inLayer / side) - 0.5 * double(side - 1)) * cell;
        const double y = inSettings.dropHeight + reach + double(layer) * cell;
        const double yaw = 2.0 * M_PI * unit(random);
        const double tilt = inSettings.maxTiltRadians * unit(random);
        const double tiltAxis = 2.0 * M_PI * unit(random);
        btQuaternion orientation(btVector3(0, 1, 0), btScalar(yaw));
        orientation = btQuaternion(btVector3(btScalar(std::cos(tiltAxis)), 0, btScalar(std::sin(tiltAxis))),
                                   btScalar(tilt)) *
                      orientation;
        transforms.emplace_back(orientation, btVector3(btScalar(x), btScalar(y), btScalar(z)));
    }
    return transforms;
}

std::vector<btRigidBody*> AddPile(SampleWorld& ioWorld, const std::shared_ptr<const DeformableAsset>& inAsset,
                                  const PileSettings& inSettings)
{
    if (!inAsset)
        throw Error("pile: the asset is null");
    std::vector<btRigidBody*> bodies;
    bodies.reserve(inSettings.count);
    for (const btTransform& transform : PileTransforms(*inAsset, inSettings))
    {
        BodyDesc desc = inSettings.body;
        desc.transform = MeshFromPrincipal(*inAsset, desc.scale, transform);
        bodies.push_back(ioWorld.Deformables().CreateBody(inAsset, desc));
    }
    return bodies;
}

} // namespace bdt
