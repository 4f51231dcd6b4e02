#pragma once

// How far the narrowphase looks for a pair's contacts in a step, and which of the speculative contacts it
// finds (apart, but within reach) it keeps: Bullet's contact breaking threshold τ bounds both, and neither
// goes further than the pair's surfaces can close over the step. Private to plugin/bullet.

#include <bdt/bullet/ContactFeature.h>
#include <bdt/core/geometry/Contact.h>
#include <bdt/core/base/Math.h>
#include <cstdint>
#include <utility>
#include <vector>

class btCollisionObject;

namespace bdt
{

struct PairContact;
class DeformableShape;

/// How a body will move over the coming step of h seconds, as far as its start is known before the contacts
/// are solved: its velocities with the step's accumulated forces applied (gravity included), and bounds on
/// what its shape adds. World frame.
struct StepMotion
{
    Vec3d linear = Vec3d::Zero();  ///< m/s: v + F·h/m of a dynamic `btRigidBody`; 0 for a static object.
    Vec3d angular = Vec3d::Zero(); ///< rad/s: ω + I⁻¹τ·h; 0 for a static object.
    Vec3d centre = Vec3d::Zero();  ///< m: the centre of mass (the origin of a static object).
    /// m: how far from the centre of mass any point of the collision surface, margin included, can be
    /// (`DeformableShape::SurfaceReach`, else Bullet's angular motion disc); 0 for a static object.
    double reach = 0.0;
    double modalSpeed = 0.0; ///< m/s: the modes' own surface speed bound (`ModalSurfaceSpeed`), 0 if rigid.
    const DeformableShape* deformable = nullptr; ///< The body's shape if deformable, else null. Not owned.
    Mat3d restToWorld = Mat3d::Identity();        ///< A deformable's `RestToWorld` fit, else identity.
    /// A deformable's root sphere at the current q, placed and scaled as the narrowphase places it (margin
    /// not included): centre (m, world) and radius (m). Made by `StepMotionCache` (whether or not the motion
    /// is `known`); radius −1 otherwise, and for other objects.
    Vec3d rootCentre = Vec3d::Zero();
    double rootRadius = -1.0;
    /// False when the motion is not known ahead: kinematic bodies, plain collision objects that are not
    /// static, non-finite values. Then nothing else is meaningful.
    bool known = false;

    /// The velocity, m/s, of the surface point `inPoint` (world) at contact feature `inFeature`: the frame's,
    /// linear + angular × (point − centre), plus, for a deformable and a feature of its tree, the modes' velocity
    /// there (`DeformableShape::ModalVelocity`: the surface point's own, or a proxy's centre, which carries the
    /// whole proxy sphere). The frame's alone for a feature without a node. About 80 flops with 10 modes;
    /// thread-safe while the body's velocities and q̇ do not change.
    Vec3d VelocityAt(const Vec3d& inPoint, const ContactFeature& inFeature = {}) const;
    /// As `VelocityAt` for a point of node `inNode` of a deformable's tree not yet named: the frame's velocity
    /// there plus the modes' at the node's sphere centre, and in `outSpread` (m/s) the most the modes' velocity
    /// at any vertex of the node can differ from that (`ShapeSolver::NodeModalVelocity`). 0 spread for a
    /// rigid body or cNoIndex.
    Vec3d NodeVelocityAt(const Vec3d& inPoint, std::uint32_t inNode, double& outSpread) const;
};

/// `inObject`'s `StepMotion` over a step of `inTimeStep` seconds (0 gives its velocities alone). Serial (it
/// calls into Bullet and, for a deformable, may update its root sphere).
StepMotion PredictStepMotion(const btCollisionObject& inObject, double inTimeStep);

/// Each body's `PredictStepMotion` (with, for a deformable, its placed root sphere: `StepMotion::rootCentre`)
/// and shape contact breaking threshold for one step, computed the first time
/// a pair asks for them: in a pile a body is in several pairs, and the motion (for a
/// deformable, its surface reach, modal speed and rotation fit) was made again for each. Keyed by the
/// object's world array index, stamped per step; an object outside a world (index −1) is computed every
/// time. Serial, like `PredictStepMotion`. The memory (about 200 bytes a body) is kept between steps.
class StepMotionCache
{
public:
    /// Starts a step of `inTimeStep` seconds: every value is made afresh when next asked for.
    void Begin(double inTimeStep);

    /// `PredictStepMotion(inObject, h)`, the same values. (A copy: an object outside a world has no entry
    /// that would keep it.)
    StepMotion MotionOf(const btCollisionObject& inObject);

    /// `inObject`'s shape's `getContactBreakingThreshold(gContactBreakingThreshold)`, m.
    double ShapeThresholdOf(const btCollisionObject& inObject);

private:
    struct Entry
    {
        StepMotion motion;
        double shapeThreshold = 0.0;
        std::uint32_t stamp = 0; ///< The step both were made in (0: never).
    };
    /// `inObject`'s entry, made for this step if it was not yet.
    const Entry& Current(const btCollisionObject& inObject);

    std::vector<Entry> mEntries;
    Entry mOutside;          ///< For an object outside a world.
    double mTimeStep = 0.0;
    std::uint32_t mStamp = 0;
};

/// An upper bound, m/s, on how fast any point of `inObject`'s collision surface (margin included) can move
/// in world over the coming step of `inTimeStep` seconds: |v| + |ω|·r + the modes' speed of its
/// `PredictStepMotion` (v, ω with the step's forces applied); 0 for a static object (Bullet's
/// CF_STATIC_OBJECT, which bodies of zero mass and plain collision objects have by default); +∞ for
/// anything whose motion is not known ahead. The contacts of the step change velocities too:
/// `ContactSearchDistance` leaves room for that. Serial (it calls into Bullet).
double SurfaceSpeedBound(const btCollisionObject& inObject, double inTimeStep);

/// An upper bound, m/s, on how fast any point of A's surface can approach any point of B's over the step:
/// |v_A − v_B| + |ω_A|·r_A + |ω_B|·r_B + both modes' speeds (so two bodies falling together close at
/// their relative speed, not the sum of their speeds); +∞ if either motion is unknown.
double ClosingSpeedBound(const StepMotion& inA, const StepMotion& inB);

/// The distance within which a pair's contacts are searched this step: min(τ, max(f·τ, 2·h·c)),
/// τ = `inThreshold` (the pair's contact breaking threshold), h = `inTimeStep`, c the bodies'
/// `ClosingSpeedBound`, f = `cSearchFloor`. A contact farther apart than the surfaces can close over two
/// steps at their current speeds gets no impulse from the solver (a speculative contact only stops an
/// approach that would pass it within the step), yet costs sphere tests, contact reduction and solver rows.
/// The factor 2 leaves room for the speed the step's contacts add; the floor f·τ finds the contacts a body
/// falls onto from rest a step ahead. τ itself when h is not positive and finite (collision detection
/// without a dynamics step) or a motion is unknown.
double ContactSearchDistance(double inThreshold, double inTimeStep, const StepMotion& inA, const StepMotion& inB);
/// The same for a pair whose speculative contacts may reach beyond τ, up to `inCap`, as far as the frames'
/// linear closing speed carries them over `inSteps` steps: max(the search above, min(inCap, inSteps·h·|v_A −
/// v_B|)). The surface contact model searches so (`SpeculativeReach`): its contacts lie on the surfaces
/// themselves, so a body falling faster than τ a step must be caught apart, before it is in; the proxies stand
/// out of the surface by their radius and catch it there.
double ContactSearchDistance(double inThreshold, double inTimeStep, const StepMotion& inA, const StepMotion& inB,
                             double inCap, double inSteps = 2.0);
/// How far beyond τ the surface model looks for a pair's speculative contacts: half the smaller reach
/// (`StepMotion::reach`) of the two bodies that move (a body never moves more than that a step without its
/// centre being swept, `WorldSettings::sweepFastBodies`); 0 if neither moves.
double SpeculativeReach(const StepMotion& inA, const StepMotion& inB);
/// The same for two objects (their `PredictStepMotion`). Serial.
double ContactSearchDistance(double inThreshold, double inTimeStep, const btCollisionObject& inA,
                             const btCollisionObject& inB);

/// The floor of `ContactSearchDistance` and of `SpeculativeFilter`, a fraction of τ.
inline constexpr double cSearchFloor = 0.1;

/// Which of a pair's contacts may close within the step, point by point: a contact at distance d (normal n
/// from B to A, points p_B and p_A = p_B + d·n) is kept when d ≤ f·τ, or when d ≤ 2·h·max(0, −n·(v_A − v_B)),
/// v_A, v_B the velocities of the two points (`StepMotion::VelocityAt`, the modes included: the rate at
/// which the proxy geometry's distance changes at the step's start). `ContactSearchDistance` bounds the same
/// test over the whole pair; in a pile most contacts within it are points of bodies that slide or turn past
/// each other, apart by most of the reach and not approaching, which the solver never pushes yet iterates
/// over every step (most of a crashing pile's points). Dropping them lets a body that the step's other
/// contacts turn towards one go into it by what that turn closes beyond the factor 2; the next step finds
/// it. (The narrowphase also keeps a pair's supports, and applies the filter only to pairs of this plugin's
/// own contact code: `DeformableCollisionAlgorithm`.) Everything is kept when h is not positive and finite
/// or a motion is unknown, as the search distance is then τ. Made serially (it reads the bodies), used on
/// any thread: it only holds values.
class SpeculativeFilter
{
public:
    SpeculativeFilter() = default;
    SpeculativeFilter(double inThreshold, double inTimeStep, const StepMotion& inA, const StepMotion& inB);

    /// What the filter says of a contact.
    enum class EVerdict : std::uint8_t
    {
        Keeps,
        Drops,
        NeedsName, ///< An unnamed contact its nodes' bounds neither keep nor drop: name it and ask again.
    };
    /// The verdict on `inContact` (A, B in the pair's roles). An unnamed piece contact (`PairContact::Unnamed`)
    /// has no surface point to take the modes' velocity at: it is kept if its surfaces close fast enough at
    /// its pieces' nodes' velocities less their spread (`StepMotion::NodeVelocityAt`), dropped if not even
    /// with the spread added.
    EVerdict Judge(const PairContact& inContact) const;
    /// Whether `inContact` stays: `Judge` does not drop it (an unnamed contact it cannot settle stays).
    bool Keeps(const PairContact& inContact) const { return Judge(inContact) != EVerdict::Drops; }

private:
    StepMotion mA, mB;
    double mFloor = 0.0;     ///< m: f·τ.
    double mTwiceStep = 0.0; ///< s: 2h.
    bool mActive = false;    ///< Whether it drops anything.

    /// m/s: how fast the surfaces close the contact along its normal, and how much more or less that may be
    /// (the nodes' spread for an unnamed contact, 0 for a named one).
    std::pair<double, double> Approach(const PairContact& inContact) const;
};

} // namespace bdt
