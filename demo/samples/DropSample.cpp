// "Drop": any mesh (--model FILE, baked on the fly with a smooth basis; default the built-in pawn) dropped
// one at a time onto the ground and onto the ones before it.
#include "app/Sample.h"

#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <algorithm>
#include <bdt/adapter/World.h>
#include <cmath>
#include <imgui.h>

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
        mAsset = BakeAsset(source, 12000, inOptions.modes);
        // Any mesh is scaled to a largest extent of 0.8 m.
        const Eigen::AlignedBox3f bounds = mAsset->GetModel().RestBounds();
        const double extent = double(bounds.sizes().maxCoeff());
        mBody.mass = 2.0;
        mBody.scale = extent > 0.0 ? 0.8 / extent : 1.0;
        mBody.proxyLevel = inOptions.proxyLevel;
        mCount = inOptions.count > 0 ? inOptions.count : 7;
        mDropped = 0;
        DropNext(ioWorld);
    }

    void PreStep(SampleWorld& ioWorld, double inTime) override
    {
        if (mDropped < mCount && inTime >= double(mDropped) * double(mInterval))
            DropNext(ioWorld);
    }

    void DrawControls() override { ImGui::SliderFloat("s between drops", &mInterval, 0.1f, 3.0f, "%.2f"); }

    CameraStart Camera() const override
    {
        CameraStart start;
        start.targetY = 0.6f;
        start.distance = 3.8f;
        return start;
    }

private:
    /// The next body, turned a little more each time, from 2 m above the ground plus a bit per body before.
    void DropNext(SampleWorld& ioWorld)
    {
        const float i = float(mDropped);
        const float angle = 0.7f * i;
        BodySettings desc = mBody;
        desc.transform = btTransform(
            btQuaternion(btVector3(std::cos(angle), 0.3f, std::sin(angle)).normalized(), 0.5f + 0.3f * i),
            btVector3(0.15f * float(mDropped % 3) - 0.15f, 2.0f + 0.1f * i, 0.12f * float(mDropped % 2)));
        ioWorld.Deformables().CreateBody(mAsset, desc);
        ++mDropped;
    }

    std::shared_ptr<const DeformableAsset> mAsset;
    BodySettings mBody;
    std::uint32_t mCount = 7, mDropped = 0;
    float mInterval = 0.72f; // s between drops
};

const bool sRegistered = RegisterSample(
    "drop", "any mesh (--model FILE, baked on the fly; default a pawn) dropped one at a time onto the others",
    [] { return std::make_unique<DropSample>(); });

} // namespace
} // namespace bdt::demo
