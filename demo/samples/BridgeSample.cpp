// "Bridge": Bullet's raycast car driving back and forth over a bridge of one deformable plank (`AddBridgeScene`).
// The car is Bullet's own btRaycastVehicle; the plugin's World watches it (`World::WatchVehicle`), so each wheel
// presses the deck with its suspension force and the plank, held by its four corners, bends under the car as it
// passes. The plank has vibration modes from the modal bake (a stiff plastic).
#include "app/Sample.h"

#include <bdt/samples/Scenes.h>
#include <bdt/bake/ModalBasis.h>
#include <bdt/core/bounds/BDTree.h>
#include <algorithm>
#include <cmath>
#include <imgui.h>
#include <map>

namespace bdt::demo
{
namespace
{

/// The deck: `inModes` vibration modes of a 300 MPa solid of 200 kg/m³ (60 kg); cached by mode count.
std::shared_ptr<const DeformableAsset> PlankAsset(std::uint32_t inModes)
{
    static std::map<std::uint32_t, std::shared_ptr<const DeformableAsset>> cache;
    if (const auto found = cache.find(inModes); found != cache.end())
        return found->second;
    ShapeMesh mesh = BridgePlankMesh(3000);
    ModalBakeSettings bake;
    bake.modes = inModes;
    bake.material = {3e8, 0.4, 200};
    auto asset = DeformableAsset::Create(std::make_shared<const BDTree>(
        BDTree::Build(MakeModalModel(std::move(mesh.positions), std::move(mesh.triangles), bake))));
    cache[inModes] = asset;
    return asset;
}

class BridgeSample final : public Sample
{
public:
    void Build(SampleWorld& ioWorld, const SampleOptions& inOptions) override
    {
        mScene = AddBridgeScene(ioWorld, PlankAsset(std::max<std::uint32_t>(inOptions.modes, 1)));
        mWorld = &ioWorld.Deformables();
        mTarget = mScene.abutmentX;
        mUnloaded = mWorld->SurfacePosition(mScene.plank, mScene.middle).y();
        mPeakSag = 0.0f;
        mCrossings = 0;
    }

    void PreStep(SampleWorld&, double inTime) override
    {
        const float x = mScene.chassis->getCenterOfMassPosition().x();
        if (mDrive && std::abs(x - mTarget) < 0.3f)
        {
            mTarget = -mTarget; // arrived: turn back
            ++mCrossings;
        }
        // The first second: the car settles on its wheels and the deck under its own weight.
        DriveBridgeCar(mScene, mDrive && inTime > 1.0 ? mTarget : x);
        if (inTime > 1.0)
            mPeakSag = std::max(mPeakSag, Sag());
        else
            mUnloaded = mWorld->SurfacePosition(mScene.plank, mScene.middle).y();
    }

    void DrawControls() override
    {
        ImGui::Checkbox("drive back and forth", &mDrive);
        ImGui::Text("deck sag %.1f mm (peak %.1f), %d crossings", 1e3f * Sag(), 1e3f * mPeakSag, mCrossings);
    }

    CameraStart Camera() const override
    {
        CameraStart start;
        start.targetY = 1.1f;
        start.distance = 6.0f;
        start.yaw = 0.45f;
        start.pitch = 0.4f;
        return start;
    }

    void Decorate(SceneDecoration& ioDecoration) const override
    {
        // The wheels (raycast, so no bodies to draw) where Bullet puts them: two rims of 24 segments, 5 cm either
        // side of the wheel's middle along its axle (its local x), joined by six spokes.
        const Eigen::Vector4f dark(0.1f, 0.1f, 0.1f, 1.0f);
        for (int wheel = 0; wheel < mScene.car->getNumWheels(); ++wheel)
        {
            const btWheelInfo& info = mScene.car->getWheelInfo(wheel);
            const auto rim = [&](int inK, float inSide)
            {
                const float angle = float(2.0 * M_PI * inK / 24);
                const btVector3 p = info.m_worldTransform * btVector3(inSide, info.m_wheelsRadius * std::cos(angle),
                                                                      info.m_wheelsRadius * std::sin(angle));
                return Eigen::Vector3f(float(p.x()), float(p.y()), float(p.z()));
            };
            for (const float side : {-0.05f, 0.05f})
                for (int k = 0; k < 24; ++k)
                    ioDecoration.lines.push_back({rim(k, side), rim(k + 1, side), dark});
            for (int k = 0; k < 24; k += 4)
                ioDecoration.lines.push_back({rim(k, -0.05f), rim(k, 0.05f), dark});
        }
    }

    void AddStats(nlohmann::json& ioStats) const override
    {
        ioStats["bridge_scene"] = {{"car_x_m", mScene.chassis->getCenterOfMassPosition().x()},
                                   {"car_y_m", mScene.chassis->getCenterOfMassPosition().y()},
                                   {"deck_height_m", mScene.deckHeight},
                                   {"peak_sag_m", mPeakSag},
                                   {"crossings", mCrossings}};
    }

private:
    /// How far the deck's middle is below where it settled before the car set off (m).
    float Sag() const { return mUnloaded - float(mWorld->SurfacePosition(mScene.plank, mScene.middle).y()); }

    BridgeScene mScene;
    World* mWorld = nullptr;
    float mTarget = 0.0f;   // where the car drives to, m (world x)
    float mUnloaded = 0.0f; // the deck middle's height before the car set off, m
    float mPeakSag = 0.0f;
    int mCrossings = 0;
    bool mDrive = true;
};

const bool sRegistered = RegisterSample(
    "bridge", "Bullet's raycast car driving back and forth over a deformable plank bridge (World::WatchVehicle)",
    [] { return std::make_unique<BridgeSample>(); });

} // namespace
} // namespace bdt::demo
