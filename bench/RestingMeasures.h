// What `bdt-bench resting` measures of a body put down to rest: where its lowest point is, how far that is
// from the surface it rests on directly below, how fast any point of it moves, whether it sleeps. Every
// measure reads the bodies' state and changes nothing, so a measured world steps as an unmeasured one.
#pragma once

#include <bdt/core/base/Math.h>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

class btRigidBody;

namespace bdt::bench
{

/// A deformable body's surface at one instant in the world frame (m): its deformed vertices and its model's
/// triangles (indices into `vertices`).
struct WorldSurface
{
    std::vector<Vec3d> vertices;
    std::span<const Triangle> triangles;
};

/// The deformed surface of `inBody`, a body made by `World::CreateBody`: vertex i at
/// T·(s·principal.Apply(p_i + U_i q)), T the body's world transform, s its shape's uniform scale, principal
/// the asset's rest-to-principal pose and q the shape's tree state's (what its collisions see). O(N·M).
void DeformedSurface(const btRigidBody& inBody, WorldSurface& outSurface);

/// m: vertices of a deformable within this of its lowest count as lowest (`LowestPoint`).
constexpr double cLowestTie = 1e-4;

/// The point of `inBody` lowest in world y: for a deformable its lowest vertex in `inSurface` (its
/// `DeformedSurface`; of those within `cLowestTie` of the lowest, the one nearest its centre of mass in x, z,
/// so that a flat bottom is measured at its middle rather than at a corner), for a rigid convex body its
/// supporting vertex along −y, margin included (a box's lowest corner, a ball's centre − r·ŷ). Throws
/// `bdt::Error` for a rigid body whose shape is not convex.
Vec3d LowestPoint(const btRigidBody& inBody, const WorldSurface* inSurface);

/// The world y of the highest point where the vertical line through `inPoint` crosses `inSurface` (brute
/// force over its triangles; those seen edge-on from above are skipped): the top of that surface directly
/// below or above the point, so that a point sunk into the body reads below it. nullopt if the line misses
/// every triangle. O(T).
std::optional<double> SurfaceTopAt(const Vec3d& inPoint, const WorldSurface& inSurface);

/// The largest speed (m/s) of any point of `inBody`. A deformable: the largest over its vertices x (of
/// `inSurface`) of |v + ω × (x − c) + R·s·U_i q̇|, c its centre of mass, R the rest-to-world rotation and q̇
/// its modal velocities. A rigid body: |v| + |ω|·(its shape's bounding radius), a bound. O(N·M) for a
/// deformable.
double LargestSpeed(const btRigidBody& inBody, const WorldSurface* inSurface);

/// What a measured body was put on.
struct Support
{
    /// The deformable body it rests on (itself measured in the same scene), or null for the flat floor y = 0.
    const btRigidBody* body = nullptr;
    /// Half the floor's size in x and z about the origin, m: infinite for a plane, finite for a mesh or
    /// heightfield floor. Unused for a body.
    double floorHalfSize = std::numeric_limits<double>::infinity();
};

/// A body whose rest is measured, named as in the report ("slab", "box", "ball 3", ...).
struct Watched
{
    std::string name;
    btRigidBody* body = nullptr;
    Support support;
};

/// The figures of one body over a run (`RestingMeter::Report`). Gaps in mm, positive above the support.
struct BodyReport
{
    std::string name;
    /// Over the measured steps where the support was found below the lowest point: the largest, mean and
    /// smallest gap from the lowest point down to the support's surface; NaN when it never was.
    double gapMaxMm = 0.0, gapMeanMm = 0.0, gapMinMm = 0.0;
    double speedMax = 0.0; ///< m/s, the largest `LargestSpeed` over the measured steps.
    double modalEnergy =
        0.0;             ///< J, the modes' energy at the end (`ModalDynamics::Energy`); 0 for a rigid body.
    /// J, what of it still rings at the end: the energy about the equilibrium of the last step's load
    /// (`ModalDynamics::VibrationEnergy`); the rest is the deflection that carries the body's weight.
    double vibrationEnergy = 0.0;
    bool asleep = false; ///< Bullet's activation state at the end is ISLAND_SLEEPING.
    /// At the end the body is no longer on its support: the vertical line through its lowest point misses the
    /// support, or the gap is above +`cOffGap` or below −`cOffGap` (sunk through it), or the lowest point is
    /// below y = −`cOffGap` (through the ground).
    bool off = false;

    static constexpr double cOffGap = 0.02; ///< m.

    /// Resting as a game programmer expects: gaps within [−2 mm, 2 mm + the margin], every point slower than
    /// 5 mm/s, on its support, asleep.
    bool Accepted(double inMarginMm) const;
    /// The report's object: name, gap_mm_max/mean/min (null when NaN), speed_max_m_s, modal_energy_j, asleep,
    /// off (0 or 1).
    nlohmann::json Json() const;
};

/// Measures the bodies of one scene: `Sample` after each step of the measured window, `Report` at the end.
/// Only reads the bodies.
class RestingMeter
{
public:
    explicit RestingMeter(std::vector<Watched> inBodies);

    /// Reads every body's gap to its support and its largest speed now. O(Σ N·M + Σ T) over the deformables.
    void Sample();
    /// Per body, in the order given: the sampled figures and the end state (energy, sleep, off).
    std::vector<BodyReport> Report();

private:
    // Every deformable's surface now (empty for rigid bodies), indexed as mBodies.
    void UpdateSurfaces();
    // The gap (m) from body `inIndex`'s lowest point down to its support's surface, nullopt if the vertical
    // line misses the support; uses the surfaces of the last `UpdateSurfaces`. Writes the lowest point.
    std::optional<double> Gap(std::size_t inIndex, Vec3d& outLowest) const;

    std::vector<Watched> mBodies;
    std::vector<WorldSurface> mSurfaces;
    std::vector<std::vector<double>> mGaps; // m, per body and sample where the support was found
    std::vector<double> mSpeedMax;          // m/s, per body
};

} // namespace bdt::bench
