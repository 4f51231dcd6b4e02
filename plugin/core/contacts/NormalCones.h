#pragma once

// The normal cones of surface features (SurfaceContacts.h): the directions in which a vertex, an edge or a
// face of a mesh or a primitive is the closest part of its body, slackened by `cConeSlack`. Private to
// plugin/core.

#include "SurfaceContacts.h"

#include <cmath>
#include <cstdint>
#include <span>

namespace bdt::detail
{

// The sine of the slack angle of `cConeSlack`.
inline constexpr double cSlackSin = cConeSlack;

// The directions u (unit) in which a feature is the closest part of its body, slackened by `cConeSlack`.
struct Cone
{
    enum class EKind : std::uint8_t
    {
        All,       ///< Any direction (a ball's centre, a capsule's axis, a non-manifold edge).
        Empty,     ///< None (a reflex edge).
        HalfSpace, ///< u·axis ≥ 0: a capsule's end cap; an open edge's sheet border (u ⊥ the edge).
        Wedge,     ///< The arc of an edge between its faces' normals: u·axis ≥ threshold (u ⊥ the edge).
        Octant,    ///< A box corner: u·axis, u·second, u·third ≥ 0 (signed face normals).
        Vertex, ///< A mesh vertex: u·(neighbour − vertex) ≤ 0 for its ring; u·axis ≥ 0 too where −u passes.
    };
    EKind kind = EKind::All;
    Vec3d axis = Vec3d::Zero();
    Vec3d second = Vec3d::Zero();
    Vec3d third = Vec3d::Zero();
    double threshold = 0.0;
    // Vertex: its position, its ring (indices into `ringVertices`) and whether it has a side.
    const Vec3d* ringVertices = nullptr;
    std::span<const std::uint32_t> ring;
    Vec3d position = Vec3d::Zero();
    bool sided = false;
    // Wedge: cos and sin of half the angle of its faces' normals, and whether the edge is reflex (for a slack
    // other than `cConeSlack`).
    double halfCos = 1.0;
    double halfSin = 0.0;
    bool reflex = false;
};

// The threshold of u·axis of an edge's wedge (`EdgeWedge`) with slack sine `inSlackSin`; above 1 where a reflex
// edge is not nearly flat within it (no direction passes).
inline double WedgeThreshold(double inHalfCos, double inHalfSin, bool inReflex, double inSlackSin)
{
    const double slackCos = std::sqrt(1.0 - inSlackSin * inSlackSin);
    if (!inReflex)
        return inHalfCos * slackCos - inHalfSin * inSlackSin; // cos(θ/2 + slack)
    if (inHalfSin <= inSlackSin)
        return inHalfCos * slackCos + inHalfSin * inSlackSin; // cos(slack − θ/2): nearly flat
    return 2.0;
}

// Whether the cone holds direction `inU`, with slack sine `inSlackSin` (at most `cConeSlack`'s).
inline bool Contains(const Cone& inCone, const Vec3d& inU, double inSlackSin = cSlackSin)
{
    switch (inCone.kind)
    {
    case Cone::EKind::All:
        return true;
    case Cone::EKind::Empty:
        return false;
    case Cone::EKind::HalfSpace:
        return inU.dot(inCone.axis) >= -inSlackSin;
    case Cone::EKind::Wedge:
        return inU.dot(inCone.axis) >=
               (inSlackSin == cSlackSin ? inCone.threshold
                                        : WedgeThreshold(inCone.halfCos, inCone.halfSin, inCone.reflex,
                                                         inSlackSin));
    case Cone::EKind::Octant:
        return inU.dot(inCone.axis) >= -inSlackSin && inU.dot(inCone.second) >= -inSlackSin &&
               inU.dot(inCone.third) >= -inSlackSin;
    case Cone::EKind::Vertex:
    {
        // The vertex is a local closest point along u when no edge of its ring rises towards u. A vertex that
        // is nearly flat (or a saddle) along u passes for −u too: its side, the outside of a closed surface,
        // decides then (a convex vertex fails −u by itself, whatever the angle of its faces).
        const auto ringBelow = [&inCone, inSlackSin](const Vec3d& inDirection)
        {
            for (const std::uint32_t w : inCone.ring)
            {
                const Vec3d edge = inCone.ringVertices[w] - inCone.position;
                if (inDirection.dot(edge) > inSlackSin * edge.norm())
                    return false;
            }
            return true;
        };
        if (!ringBelow(inU))
            return false;
        return !inCone.sided || inU.dot(inCone.axis) >= 0.0 || !ringBelow(-inU);
    }
    }
    return false;
}

// The cone of an edge between faces of unit outward normals `inNormal0` and `inNormal1`: the wedge between
// the normals where the edge is convex (or nearly flat, within the slack), empty where it is reflex.
inline Cone EdgeWedge(const Vec3d& inNormal0, const Vec3d& inNormal1, bool inReflex)
{
    Cone cone;
    const Vec3d sum = inNormal0 + inNormal1;
    const double halfCos = 0.5 * sum.norm();                     // cos(θ/2), θ the angle of the normals
    const double halfSin = 0.5 * (inNormal0 - inNormal1).norm(); // sin(θ/2)
    const bool reflex = inReflex;
    if (halfCos < 1e-9)
    {
        cone.kind = Cone::EKind::All; // a knife edge: the faces back to back
        return cone;
    }
    cone.kind = Cone::EKind::Wedge;
    cone.axis = sum / (2.0 * halfCos);
    cone.halfCos = halfCos;
    cone.halfSin = halfSin;
    cone.reflex = reflex;
    cone.threshold = WedgeThreshold(halfCos, halfSin, reflex, cSlackSin);
    if (cone.threshold > 1.0)
        cone.kind = Cone::EKind::Empty;
    return cone;
}

// The cone of a mesh edge from a → b's faces: reflex when the third vertex of face 1 rises in front of face
// 0.
inline Cone MeshEdgeWedge(const Vec3d& inA, const Vec3d& inNormal0, const Vec3d& inNormal1,
                          const Vec3d& inOpposite1)
{
    const Vec3d across = inOpposite1 - inA;
    return EdgeWedge(inNormal0, inNormal1, across.dot(inNormal0) > 1e-12 * across.norm());
}

} // namespace bdt::detail
