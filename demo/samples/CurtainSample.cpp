// "Curtain and ball": the BD-Tree paper's Table 2 curtain, an animation-driven reduced surface. A hanging
// cloth waving in a procedural wind is compressed by PCA into M = 12 fields (`ComputeAnimationBasis`, Alexa
// and Müller 2000); its q is played back from the track every step (`DeformableShape::SetQ`, a static body)
// and balls are thrown at it.
#include "app/Sample.h"

#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <bdt/adapter/World.h>
#include <bdt/bake/AnimationBasis.h>
#include <bdt/bake/SmoothBasis.h>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/model/ProceduralShapes.h>
#include <cmath>

namespace bdt::demo
{
namespace
{

constexpr std::uint32_t cFrames = 48;
constexpr double cFramesPerSecond = 24.0;
constexpr double cThrowInterval = 1.2; // s between balls
constexpr double cHangHeight = 1.6;    // m: the curtain's centre above the ground

// The curtain waving: a travelling wave in z whose amplitude grows from the top rail down, and a sway in x.
std::vector<std::vector<Vec3f>> WindFrames(const std::vector<Vec3f>& inRest)
{
    std::vector<std::vector<Vec3f>> frames(cFrames, inRest);
    for (std::uint32_t f = 0; f < cFrames; ++f)
    {
        const double phase = 2.0 * M_PI * double(f) / double(cFrames);
        for (std::size_t i = 0; i < inRest.size(); ++i)
        {
            const Vec3f& p = inRest[i];
            const double hang = std::pow(std::clamp((1.25 - double(p.y())) / 2.5, 0.0, 1.0), 1.5);
            frames[f][i].z() +=
                float(0.30 * hang * std::sin(phase - 2.2 * double(p.x()) + 1.3 * double(p.y())));
            frames[f][i].x() += float(0.06 * hang * std::sin(2.0 * phase + 0.5));
        }
    }
    return frames;
}

std::shared_ptr<const DeformableAsset> CurtainAsset()
{
    static std::shared_ptr<const DeformableAsset> asset;
    if (asset)
        return asset;
    ShapeMesh mesh = MakeShape(EShape::Curtain, 12000);
    const AnimationBasis animation = ComputeAnimationBasis(WindFrames(mesh.positions), 12);
    ModelData data;
    data.positions = animation.rest;
    data.triangles = std::move(mesh.triangles);
    data.modeCount = animation.modeCount;
    data.basis = animation.basis;
    data.normalBasis = MakeNormalBasis(data.positions, data.triangles, data.basis, data.modeCount);
    data.animation = animation.track;
    asset = DeformableAsset::Create(
        std::make_shared<const BDTree>(BDTree::Build(Model::Create(std::move(data)))));
    return asset;
}

class CurtainSample final : public Sample
{
public:
    void Build(SampleWorld& ioWorld, const SampleOptions& inOptions) override
    {
        const auto asset = CurtainAsset();
        BodySettings desc;
        desc.mass = 0.0; // static: q comes from the track
        desc.proxyLevel = inOptions.proxyLevel;
        // The rest mesh hangs as modelled (upright), its centre of mass cHangHeight above the ground.
        desc.transform.setOrigin(ToBtVector(Vec3d(0.0, cHangHeight, 0.0) - asset->Mass().centerOfMass));
        mCurtain = ioWorld.Deformables().CreateBody(asset, desc);
        mNextThrow = 0.3;
        mThrown = 0;
    }

    void PreStep(SampleWorld& ioWorld, double inTime) override
    {
        // q from the track, looped, linearly interpolated between frames.
        DeformableShape& shape = *World::Shape(mCurtain);
        const Model& model = shape.Asset().GetModel();
        const std::uint32_t modes = model.ModeCount();
        const std::span<const float> track = model.AnimationTrack();
        const double frame = std::fmod(inTime * cFramesPerSecond, double(cFrames));
        const std::uint32_t f0 = std::uint32_t(frame) % cFrames, f1 = (f0 + 1) % cFrames;
        const float w = float(frame - std::floor(frame));
        mQ.resize(modes);
        for (std::uint32_t j = 0; j < modes; ++j)
            mQ[j] = (1.0f - w) * track[f0 * modes + j] + w * track[f1 * modes + j];
        (void)shape.SetQ(mQ);

        if (inTime >= mNextThrow && mThrown < 12)
        {
            mNextThrow += cThrowInterval;
            const float x = 0.6f * std::sin(1.7f * float(mThrown));
            btRigidBody* ball = ioWorld.AddRigid(
                std::make_unique<btSphereShape>(btScalar(0.14)),
                btTransform(btQuaternion::getIdentity(), btVector3(x, btScalar(cHangHeight + 0.3), 3.0f)),
                3.0, 0.4f);
            ball->setLinearVelocity(btVector3(0.0f, 1.5f, -7.5f));
            ++mThrown;
        }
    }

    CameraStart Camera() const override
    {
        CameraStart start;
        start.targetY = 1.2f;
        start.distance = 5.5f;
        start.yaw = 0.9f;
        start.pitch = 0.2f;
        return start;
    }

private:
    btRigidBody* mCurtain = nullptr;
    std::vector<float> mQ;
    double mNextThrow = 0.0;
    int mThrown = 0;
};

const bool sRegistered = RegisterSample(
    "curtain", "the paper's Table 2: an animation-driven curtain (PCA, M = 12) and thrown balls",
    [] { return std::make_unique<CurtainSample>(); });

} // namespace
} // namespace bdt::demo
