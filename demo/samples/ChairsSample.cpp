// "Chairs": the BD-Tree paper's Figure 1 scene, deformable chairs (18k triangles, M = 10, proxies at level L)
// crashing to the ground in a pile; up to 3601 of them. The block falls in waves (`PileWaves`), one layer of the
// pile's grid at a time, so chairs keep landing on the pile for the first five seconds or so. The chairs bend by
// smooth fields, or by the vibration modes `bdt-bake --basis modal` gives the chair (`--basis`, the scene's
// "basis" control).
#include "app/Sample.h"

#include <algorithm>
#include <bdt/samples/PileWaves.h>
#include <imgui.h>
#include <optional>
#include <utility>

namespace bdt::demo
{
namespace
{

class ChairsSample final : public Sample
{
public:
    void Build(SampleWorld& ioWorld, const SampleOptions& inOptions) override
    {
        if (!mOptionsRead)
        {
            mCount = inOptions.count > 0 ? int(inOptions.count) : 100;
            mBasis = inOptions.basis;
        }
        mOptionsRead = true;
        PileWavesSettings waves;
        waves.pile.count = std::uint32_t(mCount);
        // About 9 chairs a wave for small piles; at most cMaxWaves waves.
        waves.pile.layers = std::uint32_t(std::clamp((mCount + 8) / 9, 1, cMaxWaves));
        waves.pile.seed = inOptions.seed;
        waves.pile.dropHeight = cDropHeight;
        waves.pile.body.mass = 4.0;
        waves.pile.body.proxyLevel = inOptions.proxyLevel;
        waves.interval = double(mInterval);
        mWaves.emplace(BakeAsset("chair", 18000, inOptions.modes, mBasis), waves);
        mWaves->Spawn(ioWorld, 0.0);
    }

    void PreStep(SampleWorld& ioWorld, double inTime) override
    {
        mWaves->SetInterval(double(mInterval));
        mWaves->Spawn(ioWorld, inTime);
    }

    void DrawControls() override
    {
        ImGui::SliderInt("chairs", &mCount, 1, 3601);
        if (ImGui::IsItemDeactivatedAfterEdit())
            mRebuild = true;
        ImGui::SliderFloat("s between waves", &mInterval, 0.1f, 2.0f, "%.2f");
        int basis = mBasis == EBasis::Modal ? 1 : 0;
        if (ImGui::Combo("basis", &basis, "smooth fields\0vibration modes (modal bake)\0"))
        {
            mBasis = basis == 1 ? EBasis::Modal : EBasis::Smooth;
            mRebuild = true;
        }
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("How the chairs bend: smooth procedural fields, or the vibration modes of the solid "
                              "chair as bdt-bake --basis modal bakes them (a few seconds, once)");
    }

    bool WantsRebuild() override { return std::exchange(mRebuild, false); }

    CameraStart Camera() const override
    {
        const float side = mWaves ? float(mWaves->Side()) * float(mWaves->CellWidth()) : 4.0f;
        CameraStart start;
        start.targetY = 0.6f;
        start.distance = 3.0f + 1.1f * side;
        start.pitch = 0.45f;
        return start;
    }

    void AddStats(nlohmann::json& ioStats) const override
    {
        ioStats["chairs_scene"] = {{"basis", mBasis == EBasis::Modal ? "modal" : "smooth"},
                                   {"chairs", mWaves ? mWaves->Spawned() : 0}};
    }

private:
    static constexpr int cMaxWaves = 12;
    static constexpr double cDropHeight = 1.8; // m between the ground and a wave's lowest bounding sphere

    int mCount = 100;
    EBasis mBasis = EBasis::Smooth;
    bool mOptionsRead = false; // the command line's count and basis are read once; the controls own them then
    bool mRebuild = false;
    float mInterval = 0.45f; // s between waves
    std::optional<PileWaves> mWaves;
};

const bool sRegistered = RegisterSample(
    "chairs", "the paper's Figure 1: deformable chairs crashing onto a pile in waves (up to 3601)",
    [] { return std::make_unique<ChairsSample>(); });

} // namespace
} // namespace bdt::demo
