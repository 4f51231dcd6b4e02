// "Pile": deformable bodies (tori, chairs, pawns) and rigid Bullet boxes and spheres dropped together.
#include "app/Sample.h"

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <bdt/adapter/World.h>
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
                BodyDesc desc;
                desc.mass = 2.0;
                desc.scale = scales[kind];
                desc.proxyLevel = inOptions.proxyLevel;
                desc.transform = transform;
                ioWorld.Deformables().CreateBody(assets[kind], desc);
                break;
            }
            }
        }
    }

    CameraStart Camera() const override
    {
        CameraStart start;
        start.targetY = 0.4f;
        start.distance = 5.0f;
        return start;
    }
};

const bool sRegistered = RegisterSample("pile", "deformable and rigid bodies dropped together",
                                        [] { return std::make_unique<PileSample>(); });

} // namespace
} // namespace bdt::demo
