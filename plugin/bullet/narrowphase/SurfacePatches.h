#pragma once

// What the surface model's contact makers share about a deformable's surface patches (`ProxyPatches`): a
// proxy's patch placed for a query, whether a point lies inside the closed surface, and surface contacts as
// pair contacts. Below the narrowphase's dispatcher (`ContactGeneration.h`) and its leaves
// (`ConvexProxyContacts.h`, `ConcaveProxyContacts.h`), which all use it. Private to plugin/bullet.

#include "bullet/manifold/PairContact.h"

#include "core/contacts/SurfaceCache.h"
#include "core/contacts/SurfaceContacts.h"

#include <bdt/core/geometry/Contact.h>
#include <bdt/core/queries/TreeQueries.h>
#include <span>
#include <vector>

class btTransform;

namespace bdt
{

class DeformableShape;

/// The surface patch of proxy `inProxy` of `inShape` placed as `inBody` places it (`PlacePatch` with the
/// shape's cache and margin), with half the proxy's radius as its depth limit (`PatchView::depthLimit`). The
/// shape must have its patches (`ShapeSolver::Patches`). With `ioStats`, the placement and the view's
/// feature tests are counted there. `inStorage` Scratch places it in `ioScratch` alone (the second side of a
/// pair whose two objects share one shape: the first side's view refers into the cache).
PatchView PlaceProxyPatch(const DeformableShape& inShape, const DeformedBody& inBody, std::uint32_t inProxy,
                          PlacedPatch& ioScratch, QueryStats* ioStats = nullptr,
                          EPatchStorage inStorage = EPatchStorage::Cache);

/// Whether the world point `inPoint` lies inside the closed deformed surface of `inShape` placed by
/// `inWorldFromLocal`: the first face a ray from it crosses (`RayCast`, away from the body's origin) faces
/// along the ray, the way out. False for a surface that is not closed (`ProxyPatches::Closed`; no inside) or
/// without patches. What the surface model asks where a shape made no contact with a body it overlaps: a
/// primitive wholly inside the body (spawned there, or through the surface in one step) has no surface
/// feature near it that faces it. One ray through the tree, O(log T) sphere tests typically.
bool InsideSurface(const DeformableShape& inShape, const btTransform& inWorldFromLocal, const Vec3d& inPoint,
                   QueryStats& ioStats);

/// Appends surface contacts as pair contacts: A's feature, and B's for a deformable B (its proxy set).
void AppendSurface(std::span<const SurfaceContact> inContacts, std::vector<PairContact>& outContacts);

} // namespace bdt
