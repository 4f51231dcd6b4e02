#pragma once

// Deformable proxies against a general concave shape (triangle meshes, scaled meshes, heightfields, a
// custom concave shape that is not deformable): the proxies are culled by the concave's world box, then
// each proxy sphere asks the concave for the triangles near it (`processAllTriangles` with the sphere's box
// in the concave's frame) and keeps the nearest one. Private to plugin/bullet.

#include "bullet/manifold/PairContact.h"

#include <bdt/core/geometry/Contact.h>
#include <bdt/core/queries/TreeQueries.h>
#include <vector>

struct btCollisionObjectWrapper;

namespace bdt
{

class DeformableShape;

/// Appends the contacts of `inA` (inflated by `inMarginA` + `inMaxDistance`) with the concave shape of
/// `inB`: per proxy, the exact closest point of its nearest triangle (ties: the lowest part id, then
/// triangle index), kept when its distance is at most `inMaxDistance`. Triangles are two-sided and carry the
/// concave's margin, as in Bullet's own convex-concave algorithm; the distance is |centre − closest point|
/// − proxy radius − B's margin − `inMarginA`. `index1` and `partId1` name the triangle.
void ConcaveProxyContacts(const DeformedBody& inA, double inMarginA, double inMaxDistance,
                          const btCollisionObjectWrapper& inB, std::vector<PairContact>& outContacts,
                          QueryStats& ioStats);

/// The surface model's contacts of `inShapeA` (placed by `inA`) with the concave shape of `inB` within
/// `inMaxDistance`: the proxies culled by the concave's world box, then per proxy the concave's triangles near the
/// proxy's sphere (`processAllTriangles` with its box in the concave's frame) against the proxy's patch as
/// two-sided triangles with the concave's margin (`PatchContacts` with triangles). `index1` and `partId1` name
/// B's triangle.
void ConcaveSurfaceContacts(const DeformableShape& inShapeA, const btCollisionObjectWrapper& inA,
                            double inMaxDistance, const btCollisionObjectWrapper& inB,
                            std::vector<PairContact>& outContacts, QueryStats& ioStats);

} // namespace bdt
