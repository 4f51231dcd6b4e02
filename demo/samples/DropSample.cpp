// "Drop": any mesh (--model FILE, baked on the fly with a smooth basis; default the built-in pawn) dropped a
// few times onto the ground and onto itself.
#include "app/Sample.h"

#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <algorithm>
#include <bdt/adapter/World.h>

namespace bdt::demo
{
namespace
{

class DropSample final : public Sample
{
public:
    void Build(SampleWorld& ioWorld, const SampleOptions& inOptions) override
    {
        const std::string source = inOptions.model.empty() ? std::string("pawn") : inOptions.model;
        const auto asset = BakeAsset(source, 12000, inOptions.modes);
        // Any mesh is scaled to a largest extent of 0.8 m.
        const Eigen::AlignedBox3f bounds = asset->GetModel().RestBounds();
        const double extent = double(bounds.sizes().maxCoeff());
        const double scale = extent > 0.0 ? 0.8 / extent : 1.0;
        const std::uint32_t count = inOptions.count > 0 ? inOptions.count : 6;
        for (std::uint32_t i = 0; i < count; ++i)
        {
            BodyDesc desc;
            desc.mass = 2.0;
            desc.scale = scale;
            desc.proxyLevel = inOptions.proxyLevel;
            const float angle = 0.7f * float(i);
            desc.transform = btTransform(
                btQuaternion(btVector3(std::cos(angle), 0.3f, std::sin(angle)).normalized(),
                             0.5f + 0.3f * float(i)),
                btVector3(0.15f * float(i % 3) - 0.15f, 0.6f + 0.9f * float(i), 0.12f * float(i % 2)));
            ioWorld.Deformables().CreateBody(asset, desc);
        }
    }

    CameraStart Camera() const override
    {
        CameraStart start;
        start.targetY = 0.5f;
        start.distance = 3.5f;
        return start;
    }
};

const bool sRegistered =
    RegisterSample("drop", "any mesh (--model FILE, baked on the fly; default a pawn) dropped onto itself",
                   [] { return std::make_unique<DropSample>(); });

} // namespace
} // namespace bdt::demo
