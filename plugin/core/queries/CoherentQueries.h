#pragma once

// The narrowphase's temporally coherent proxy queries: the same contacts as `CollideProxies`
// (TreeQueries.h), found from what the pair kept of the previous step. Internal: the Bullet algorithms
// choose them by the bodies' settings (`DeformableShapeSettings::frontTracking`, `pairCacheSkin`).

#include "PrimitivePairCache.h"
#include "ProxyPairCache.h"
#include "TraversalFront.h"

#include <bdt/core/queries/TreeQueries.h>
#include <optional>

namespace bdt
{

/// Front-tracked: the contacts of `CollideProxies(inA, inB, ...)` (as a set; the order may differ), found from
/// the pair's front of the previous query instead of from the roots, and the front moved to where this query
/// stopped (`TraversalFront`). For bodies resting on each other it skips the coarse levels and carries the
/// pairs that missed by more than their gap can have closed untested.
void CollideProxiesFromFront(DeformedBody inA, DeformedBody inB, TraversalFront& ioFront,
                             std::vector<ProxyContact>& outContacts, QueryStats& ioStats);

/// Cached: the contacts of `CollideProxies(inA, inB, ...)` (as a set; the order may differ), answered from the
/// pair's list of proxy pairs within reach plus a skin while the bodies have not moved relative to each other
/// by more than the skin, else by a descent from the roots that makes a new list (`ProxyPairCache`). For
/// bodies resting on each other: two sphere updates and one test per kept pair instead of a descent.
void CollideProxiesCached(DeformedBody inA, DeformedBody inB, ProxyPairCache& ioCache,
                          std::vector<ProxyContact>& outContacts, QueryStats& ioStats);

/// Cached against a primitive: the contacts of `CollideProxies(inA, inPrimitive, ...)` (the same bits, in the
/// same order), answered from the body's list of proxies within reach of the primitive plus a skin while the
/// body has not moved by more than the skin since, else by a descent that makes a new list
/// (`PrimitivePairCache`). For a body resting on the ground: a sphere update and a test per kept proxy
/// instead of a descent. Defined for the four `PrimitiveShape`s.
template <PrimitiveShape Primitive>
void CollideProxiesCached(DeformedBody inA, const Primitive& inPrimitive, PrimitivePairCache& ioCache,
                          std::vector<ProxyContact>& outContacts, QueryStats& ioStats);

/// The proxy contact `CollideProxies(inA, inPrimitive, ...)` makes for proxy `inProxy` alone (its updated
/// sphere, placed and inflated as `inA` places it), or nothing where that sphere misses the primitive. For a
/// descent that reached the proxy by other bounds (the surface model's contact cut). Defined for the four
/// `PrimitiveShape`s.
template <PrimitiveShape Primitive>
std::optional<ProxyContact> ProxyContactWith(const DeformedBody& inA, std::uint32_t inProxy,
                                             const Primitive& inPrimitive);

} // namespace bdt
