// What a renderer reads between steps is the surface the last solve aimed at: a struck, ringing modal slab pinned
// by its corner shows its pinned vertex where the pin's solve aimed it at every step's end, through
// `World::DeformedVertices`, `AttachmentGap` and a snapshot loaded into a twin world; the motion vectors'
// previous state is the one shown at the step before.
#include "support/BulletScenes.h"

#include <bdt/adapter/World.h>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/asset/DeformableAsset.h>
#include <bdt/samples/SampleWorld.h>
#include <btBulletDynamicsCommon.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <gtest/gtest.h>
#include <memory>
#include <vector>

namespace bdt
{
namespace
{

constexpr double cStep = 1.0 / 60.0;

/// A slab (1 × 0.1 × 1 m, 10 kg, 10 modes of a 20 MPa solid: its first mode rings at about a tenth of the step
/// rate) 3 m up, pinned at its corner vertex to the world, undamped.
struct PinnedSlab
{
    SampleWorld world;
    btRigidBody* body = nullptr;
    std::size_t vertex = 0; ///< The pinned vertex, baked mesh order.
    btVector3 pin{0, 0, 0};
    AttachmentId id = AttachmentId::None;

    PinnedSlab()
    {
        World& deformables = world.Deformables();
        const auto asset = test::ModalShapeAsset("slab", 3000, 10, 2e7);
        BodySettings settings;
        settings.mass = 10.0;
        settings.transform.setOrigin(btVector3(0, 3, 0));
        body = deformables.CreateBody(asset, settings);
        body->setDamping(0, 0);
        body->setActivationState(DISABLE_DEACTIVATION);
        const btVector3 corner = deformables.MeshTransform(body) * btVector3(0.5f, 0.05f, 0.5f);
        std::vector<float> xyz(3 * asset->GetModel().VertexCount());
        deformables.DeformedVertices(body, xyz);
        double nearest = 1e9;
        for (std::size_t v = 0; v < xyz.size() / 3; ++v)
        {
            const double d = double((btVector3(xyz[3 * v], xyz[3 * v + 1], xyz[3 * v + 2]) - corner).length());
            if (d < nearest)
            {
                nearest = d;
                vertex = v;
            }
        }
        pin = btVector3(xyz[3 * vertex], xyz[3 * vertex + 1], xyz[3 * vertex + 2]);
        id = deformables.Attach(body, deformables.ClosestSurfacePoint(body, pin), nullptr, pin);
    }

    btVector3 Shown(btRigidBody* inBody, World& inWorld) const
    {
        std::vector<float> xyz(3 * World::Shape(inBody)->Asset().GetModel().VertexCount());
        inWorld.DeformedVertices(inBody, xyz);
        return btVector3(xyz[3 * vertex], xyz[3 * vertex + 1], xyz[3 * vertex + 2]);
    }
};

// Struck at its far corner, the slab swings and rings. A rigid pin's solve aims its point at (1 − erp) of the gap
// it starts the step with (`SurfaceAttachment`); at every step's end the pinned vertex is shown within 3 mm of
// that aim. Shown one modal step late (the modal step at the next step's start), it was up to 42 mm off it.
TEST(WorldShownSurface, AStruckPinnedSlabShowsItsPinWhereTheSolveAimedIt)
{
    PinnedSlab slab;
    PinnedSlab twin; // loads each snapshot
    World& deformables = slab.world.Deformables();
    World& twinDeformables = twin.world.Deformables();
    const double keep = 1.0 - AttachmentSettings().erp;
    btVector3 gap = slab.Shown(slab.body, deformables) - slab.pin;
    ASSERT_LT(double(gap.length()), 1e-4);
    deformables.ApplyImpulse(slab.body, deformables.MeshTransform(slab.body) * btVector3(-0.5f, 0.05f, -0.5f),
                             btVector3(0, 5, 0));
    const std::size_t floats = 3 * World::Shape(slab.body)->Asset().GetModel().VertexCount();
    std::vector<float> shownBefore(floats), shown(floats);
    deformables.DeformedVertices(slab.body, shownBefore);
    double worstMiss = 0.0, largestGap = 0.0, peakModalEnergy = 0.0;
    for (int step = 0; step < 240; ++step)
    {
        slab.world.Step(1, cStep);
        const DeformableShape& shape = *World::Shape(slab.body);
        peakModalEnergy = std::max(peakModalEnergy, shape.Dynamics().Energy());
        const btVector3 aim = btScalar(keep) * gap;
        gap = slab.Shown(slab.body, deformables) - slab.pin;
        worstMiss = std::max(worstMiss, double((gap - aim).length()));
        largestGap = std::max(largestGap, double(gap.length()));
        // The attachment's gap reads the surface as shown.
        EXPECT_NEAR(deformables.AttachmentGap(slab.id), double(gap.length()), 1e-5) << "step " << step;
        // The motion vectors' previous state is what was shown at the step before.
        const btTransform previousMesh = deformables.PreviousMeshTransform(slab.body);
        const std::span<const float> previousQ = deformables.PreviousQ(slab.body);
        for (std::size_t v = 0; v < floats / 3; v += 97)
        {
            const btVector3 was =
                previousMesh * ToBtVector(shape.Asset().GetModel().DeformedPosition(std::uint32_t(v), previousQ));
            const btVector3 shownThen(shownBefore[3 * v], shownBefore[3 * v + 1], shownBefore[3 * v + 2]);
            EXPECT_LT(double((was - shownThen).length()), 1e-4) << "step " << step << ", vertex " << v;
        }
        deformables.DeformedVertices(slab.body, shownBefore);
        // A snapshot shows the same surface.
        if (step % 10 == 0)
        {
            twinDeformables.LoadState(deformables.SaveState());
            twinDeformables.DeformedVertices(twin.body, shown);
            for (std::size_t i = 0; i < floats; ++i)
                ASSERT_NEAR(shown[i], shownBefore[i], 1e-5) << "step " << step << ", coordinate " << i;
        }
    }
    ASSERT_GT(peakModalEnergy, 1.0) << "the slab's modes hardly ring: nothing shown late";
    ASSERT_GT(largestGap, 5e-3) << "the pin hardly moved: nothing to aim";
    EXPECT_LT(worstMiss, 3e-3) << "the pinned vertex was shown " << 1e3 * worstMiss << " mm from the solve's aim";
    std::printf("struck pinned slab: shown within %.2f mm of the solve's aim; gap up to %.2f mm; peak modal "
                "energy %.2f J\n",
                1e3 * worstMiss, 1e3 * largestGap, peakModalEnergy);
}

} // namespace
} // namespace bdt
