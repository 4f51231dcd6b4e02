// "Pile": deformable bodies (tori, chairs, pawns) and rigid Bullet boxes and spheres dropped together, then
// heavy balls thrown into the pile now and then.
#include "app/Sample.h"

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <bdt/adapter/World.h>
#include <cmath>
#include <imgui.h>
#include <random>

namespace bdt::demo
{
namespace
{

class PileSample final : public Sample
{
public:
    void Build(SampleWorld& ioWorld, const SampleOptions& inOptions) override
    {
        const std::shared_ptr<const DeformableAsset> assets[] = {BakeAsset("torus", 6000, inOptions.modes),
                                                                 BakeAsset("chair", 18000, inOptions.modes),
                                                                 BakeAsset("pawn", 6000, inOptions.modes)};
        const double scales[] = {0.5, 0.7, 0.6};
        const std::uint32_t count = inOptions.count > 0 ? inOptions.count : 48;
        std::mt19937 random(inOptions.seed);
        std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
        const int side = 4;
        for (std::uint32_t i = 0; i < count; ++i)
        {
            const int layer = int(i) / (side * side);
            const int cell = int(i) % (side * side);
            const btVector3 position(0.9f * float(cell % side - side / 2) + 0.1f * unit(random),
                                     0.6f + 0.9f * float(layer),
                                     0.9f * float(cell / side - side / 2) + 0.1f * unit(random));
            const btQuaternion orientation(btVector3(unit(random), unit(random), unit(random)).normalized(),
                                           3.0f * unit(random));
            const btTransform transform(orientation, position);
            switch (i % 5)
            {
            case 3: // a rigid box
                ioWorld.AddRigid(std::make_unique<btBoxShape>(btVector3(0.2f, 0.12f, 0.16f)), transform, 3.0);
                break;
            case 4: // a rigid ball
                ioWorld.AddRigid(std::make_unique<btSphereShape>(btScalar(0.16)), transform, 2.0);
                break;
            default:
            {
                const std::size_t kind = (i / 5 + i) % 3;
                BodySettings desc;
                desc.mass = 2.0;
                desc.scale = scales[kind];
                desc.proxyLevel = inOptions.proxyLevel;
                desc.transform = transform;
                ioWorld.Deformables().CreateBody(assets[kind], desc);
                break;
            }
            }
        }
        mThrown = 0;
    }

    void PreStep(SampleWorld& ioWorld, double inTime) override
    {
        if (!mThrowBalls || mThrown >= cMaxBalls || inTime < cFirstThrow + double(mThrown) * cThrowInterval)
            return;
        // From 3 m out on a circle around the pile, 1.5 m up, at the pile's middle.
        const float angle = 2.4f * float(mThrown);
        const btVector3 from(3.0f * std::cos(angle), 1.5f, 3.0f * std::sin(angle));
        const btVector3 to(0.0f, 0.4f, 0.0f);
        btRigidBody* ball = ioWorld.AddRigid(std::make_unique<btSphereShape>(btScalar(0.14)),
                                             btTransform(btQuaternion::getIdentity(), from), 6.0, 0.4f);
        ball->setLinearVelocity(9.0f * (to - from).normalized() + btVector3(0.0f, 1.0f, 0.0f));
        ++mThrown;
    }

    void DrawControls() override { ImGui::Checkbox("throw balls into the pile", &mThrowBalls); }

    CameraStart Camera() const override
    {
        CameraStart start;
        start.targetY = 0.4f;
        start.distance = 5.0f;
        return start;
    }

private:
    static constexpr double cFirstThrow = 2.6, cThrowInterval = 1.0; // s
    static constexpr int cMaxBalls = 10;
    bool mThrowBalls = true;
    int mThrown = 0;
};

const bool sRegistered =
    RegisterSample("pile", "deformable and rigid bodies dropped together, balls thrown into them",
                   [] { return std::make_unique<PileSample>(); });

} // namespace
} // namespace bdt::demo
