#pragma once

// Deformable proxies against a general convex shape (cylinder, cone, convex hull, multi-sphere, ...): the
// proxies are culled by the convex's world box, then each proxy sphere gets its exact closest points from
// Bullet's GJK (EPA when they overlap). Private to plugin/bullet.

#include "bullet/manifold/PairContact.h"

#include <bdt/core/geometry/Contact.h>
#include <bdt/core/queries/TreeQueries.h>
#include <vector>

struct btCollisionObjectWrapper;

namespace bdt
{

class DeformableShape;

/// Appends the contacts of `inA` (inflated by `inMarginA` + `inMaxDistance`) with the convex shape of
/// `inB`, one per proxy whose distance is at most `inMaxDistance`. `inB`'s shape must be convex. The
/// distance is GJK's distance between a `btSphereShape` of the proxy's radius and the convex (its margin
/// included), minus `inMarginA`.
void ConvexProxyContacts(const DeformedBody& inA, double inMarginA, double inMaxDistance,
                         const btCollisionObjectWrapper& inB, std::vector<PairContact>& outContacts,
                         QueryStats& ioStats);

/// The surface model's contacts of `inShapeA` (placed by `inA`) with the convex shape of `inB` within
/// `inMaxDistance`: the proxies culled by the convex's world box, then per own triangle of each proxy's patch the
/// closest points of the deformed triangle (a `btTriangleShape` with A's margin) and the convex by Bullet's GJK
/// (EPA when they overlap), each kept where its feature is the patch's to report and the direction lies in its
/// normal cone (`AcceptsTriangleContact`); and, for a polyhedral convex (`btPolyhedralConvexShape`), its
/// vertices against the patch's faces and edges, so a hull lying on a face gets its corners.
void ConvexSurfaceContacts(const DeformableShape& inShapeA, const btCollisionObjectWrapper& inA, double inMaxDistance,
                           const btCollisionObjectWrapper& inB, std::vector<PairContact>& outContacts,
                           QueryStats& ioStats);

} // namespace bdt
