// A modal body resting on the ground under the surface contact model: the coupling of its modes to its
// contacts (the read-back of impulses into the modes, the step prediction, the coupled solve) takes energy out
// of the modes, never puts it in. Its vibration rings down as its damping says (ModalDynamics, ζ per mode),
// and Bullet puts it to sleep.
#include "support/BulletScenes.h"

#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <algorithm>
#include <bdt/samples/SampleWorld.h>
#include <bdt/bake/ModalBasis.h>
#include <bdt/bullet/Conversions.h>
#include <bdt/core/asset/DeformableAsset.h>
#include <bdt/core/model/ProceduralShapes.h>
#include <cmath>
#include <gtest/gtest.h>
#include <iostream>
#include <limits>

namespace bdt
{
namespace
{

constexpr double cStep = 1.0 / 60.0;

/// The 1 m × 0.1 m × 1 m slab of about 3000 triangles with 10 vibration modes of a soft solid
/// (E = 1 MPa, ν = 0.4, ρ = 1000 kg/m³): modes of 2 to 12 Hz, the case of issue #41.
std::shared_ptr<const DeformableAsset> ModalSlab()
{
    return test::ModalShapeAsset("slab", 3000, 10, 1e6);
}

/// World y of the slab's lowest deformed vertex.
double LowestVertex(btRigidBody& inBody, const DeformableAsset& inAsset)
{
    const Pose principal = inAsset.Mass().ToPrincipal();
    const Model& model = inAsset.GetModel();
    const std::span<const float> q = World::Shape(&inBody)->State().Q();
    const Mat3d basis = ToMat3d(inBody.getWorldTransform().getBasis());
    const Vec3d origin = ToVec3d(inBody.getWorldTransform().getOrigin());
    double lowest = std::numeric_limits<double>::infinity();
    for (std::uint32_t i = 0; i < model.VertexCount(); ++i)
        lowest = std::min(lowest, (basis * principal.Apply(model.DeformedPosition(i, q)) + origin).y());
    return lowest;
}

} // namespace

// The slab dropped from 5 cm onto the ground plane, tilted, 6 s: from the peak of its modes' kinetic energy after
// the landing on, every half second's largest kinetic energy stays under the free decay of the slowest-decaying
// mode from that peak, exp(−2ζω·t) (with a factor 4 for the exchange between kinetic and potential energy within
// a cycle), or under 1 µJ; the slab falls asleep within 4 s and ends on the ground within 2 mm (its margin
// counted).
TEST(WorldModalRest, ModalSlabRingsDownWithItsDampingAndSleeps)
{
    const auto asset = ModalSlab();
    SampleWorld world;
    world.AddGroundPlane();
    BodySettings desc;
    desc.mass = 100.0;
    // Tilted 0.05 rad about x so that it lands on an edge first: a slab landing flat on an even floor takes
    // its impulse evenly over its face and hardly rings its bending modes.
    const Mat3d tilt = Eigen::AngleAxisd(0.05, Vec3d::UnitX()).toRotationMatrix();
    desc.transform = btTransform(ToBtMatrix(tilt), btVector3(0, 0.1f, 0));
    btRigidBody* slab = world.Deformables().CreateBody(asset, desc);
    const ModalDynamics& modes = World::Shape(slab)->Dynamics();
    ASSERT_EQ(modes.ModeCount(), 10u);
    // The slowest free decay of the modes' energy, per second.
    double slowestDecay = std::numeric_limits<double>::infinity();
    for (std::uint32_t i = 0; i < modes.ModeCount(); ++i)
        slowestDecay = std::min(slowestDecay, 2.0 * modes.Damping(i) * modes.Frequency(i));
    ASSERT_GT(slowestDecay, 0.0);

    const int steps = 360;
    std::vector<double> kinetic(steps);
    int asleepAt = -1;
    for (int step = 0; step < steps; ++step)
    {
        world.Step(1, cStep);
        kinetic[std::size_t(step)] = modes.KineticEnergy();
        if (asleepAt < 0 && slab->getActivationState() == ISLAND_SLEEPING)
            asleepAt = step;
        ASSERT_TRUE(std::isfinite(kinetic[std::size_t(step)]));
    }
    const auto peak = std::max_element(kinetic.begin(), kinetic.begin() + 60);
    const double peakTime = double(peak - kinetic.begin()) * cStep;
    std::cout << "[ info ] peak modal kinetic energy " << *peak << " J at " << peakTime
              << " s, slowest decay " << slowestDecay << " /s, asleep at step " << asleepAt << "\n";
    EXPECT_GT(*peak, 1e-3); // the landing does ring the modes
    for (int begin = int(peak - kinetic.begin()) + 1; begin + 30 <= steps; begin += 30)
    {
        const double largest = *std::max_element(kinetic.begin() + begin, kinetic.begin() + begin + 30);
        const double envelope = 4.0 * *peak * std::exp(-slowestDecay * (double(begin) * cStep - peakTime));
        SCOPED_TRACE(testing::Message() << "window from " << double(begin) * cStep << " s");
        std::cout << "[ info ] from " << double(begin) * cStep << " s: largest " << largest << " J, decay bound "
                  << envelope << " J\n";
        EXPECT_LE(largest, std::max(envelope, 1e-6));
    }
    EXPECT_GE(asleepAt, 0);
    EXPECT_LE(asleepAt, 240);
    const double margin = double(World::Shape(slab)->getMargin());
    const double lowest = LowestVertex(*slab, *asset);
    EXPECT_GT(lowest, -0.002);
    EXPECT_LT(lowest, 0.002 + margin);
}

} // namespace bdt
