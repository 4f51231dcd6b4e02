// "Hang": the attachments' scene (`AddHangScene`, `World::Attach`). A curtain hung by its top edge from a rod, two
// vibrating chairs hung by one corner from boxes swinging on Bullet's ball joints (the first held by an attachment,
// the second by Bullet's own ball joint: both bend alike), and a plank held by both ends on two posts, carrying
// crates. The chair and the plank have vibration modes from the modal bake (a soft solid for
// the chair, a stiff plastic for the plank), the curtain a smooth basis.
#include "app/Sample.h"

#include <bdt/samples/Scenes.h>
#include <bdt/bake/ModalBasis.h>
#include <bdt/core/bounds/BDTree.h>
#include <bdt/core/model/ProceduralShapes.h>
#include <map>

namespace bdt::demo
{
namespace
{

/// A built-in shape with `inModes` vibration modes of a solid of Young's modulus `inYoung` (Pa), ν = 0.4,
/// 1000 kg/m³; cached.
std::shared_ptr<const DeformableAsset> ModalAsset(EShape inShape, std::uint32_t inTriangles, std::uint32_t inModes,
                                                  double inYoung)
{
    static std::map<std::tuple<EShape, std::uint32_t, std::uint32_t, double>, std::shared_ptr<const DeformableAsset>>
        cache;
    const auto key = std::make_tuple(inShape, inTriangles, inModes, inYoung);
    if (const auto found = cache.find(key); found != cache.end())
        return found->second;
    ShapeMesh mesh = MakeShape(inShape, inTriangles);
    ModalBakeSettings bake;
    bake.modes = inModes;
    bake.material = {inYoung, 0.4, 1000};
    auto asset = DeformableAsset::Create(std::make_shared<const BDTree>(
        BDTree::Build(MakeModalModel(std::move(mesh.positions), std::move(mesh.triangles), bake))));
    cache[key] = asset;
    return asset;
}

class HangSample final : public Sample
{
public:
    void Build(SampleWorld& ioWorld, const SampleOptions& inOptions) override
    {
        HangAssets assets;
        assets.curtain = BakeAsset("curtain", 3000, inOptions.modes);
        assets.chair = ModalAsset(EShape::Chair, 3000, inOptions.modes, 2e6);
        assets.plank = ModalAsset(EShape::Beam, 1200, inOptions.modes, 2e7);
        AddHangScene(ioWorld, assets);
    }

    CameraStart Camera() const override
    {
        CameraStart start;
        start.targetX = 0.4f;
        start.targetY = 1.8f;
        start.distance = 9.5f;
        start.yaw = 0.1f;
        start.pitch = 0.2f;
        return start;
    }
};

const bool sRegistered = RegisterSample(
    "hang", "attachments and joints: a curtain on a rod, two chairs under swinging boxes (one on World::Attach, one on "
    "Bullet's ball joint), a plank on two posts carrying crates",
    [] { return std::make_unique<HangSample>(); });

} // namespace
} // namespace bdt::demo
