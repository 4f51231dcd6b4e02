// Tree vs tree from a front (TraversalFront.h): `CollideProxiesFromFront`, the simultaneous descent
// (PairDescent.h) started where the last one stopped, the pairs whose clearance exceeds how far the bodies
// can have closed on each other since carried over untested; and when a front is kept or dropped.

#include "TraversalFront.h"

#include "CoherentQueries.h"
#include "PairDescent.h"
#include "TreeQueriesInternal.h"

#include <bdt/core/bounds/BDTree.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace bdt
{

/// Grants the queries access to a front's state.
struct TraversalFrontAccess
{
    static TraversalFront::Key KeyOf(const DeformedBody& inA, const DeformedBody& inB)
    {
        return {&inA.state->Tree(), &inB.state->Tree(), inA.state->Proxies().Level(),
                inB.state->Proxies().Level()};
    }
    static std::vector<TraversalFront::NodePair>& Pairs(TraversalFront& ioFront) { return ioFront.mPairs; }
    static std::vector<float>& Clearances(TraversalFront& ioFront) { return ioFront.mClearances; }
    static std::uint64_t& RootTests(TraversalFront& ioFront) { return ioFront.mRootTests; }
    static std::uint32_t& QueriesSinceRoots(TraversalFront& ioFront) { return ioFront.mQueriesSinceRoots; }
    static std::size_t& Skipped(TraversalFront& ioFront) { return ioFront.mSkipped; }
    static TraversalFront::Key& Key(TraversalFront& ioFront) { return ioFront.mKey; }
    using Reference = TraversalFront::Reference;
    static Reference& Ref(TraversalFront& ioFront) { return ioFront.mReference; }
};

namespace
{

using detail::AppendSphereContact;
using detail::cRoots;
using detail::DescendPairs;
using detail::FrontCarry;
using detail::RelativeFrame;

// How far any front pair's gap can have closed since the front's reference (A's units), or infinity when the
// clearances do not apply (other states, scales or bounds, or §3.5 temporal coherence: its spheres are those
// of a reference q). The terms are those of `TraversalFront`'s comment; the float rounding of the centres'
// updates, of B's mapping and of the clearance itself, at the reference and now, is covered by a relative
// margin on every magnitude involved.
double FrontDrift(const TraversalFrontAccess::Reference& inReference, const DeformedBody& inA, const DeformedBody& inB,
                  const RelativeFrame& inFrame)
{
    constexpr double cNever = std::numeric_limits<double>::infinity();
    const TreeState& a = *inA.state;
    const TreeState& b = *inB.state;
    if (!inReference.valid || inReference.stateA != &a || inReference.stateB != &b ||
        inReference.boundA != int(a.Bound()) || inReference.boundB != int(b.Bound()) ||
        inReference.scaleA != inA.scale || inReference.scaleB != inB.scale || a.TemporalCoherence() ||
        b.TemporalCoherence())
        return cNever;
    const double k = inB.scale / inA.scale;
    const auto [movedA, grownA] = detail::MotionSince(a, inReference.qA, a.Proxies().NodeRadiusBounds());
    const auto [movedB, grownB] = detail::MotionSince(b, inReference.qB, b.Proxies().NodeRadiusBounds());
    const double turn = (inFrame.rotation - inReference.map).norm(); // ‖N' − N‖_F
    const Vec3d& shift = inReference.shift;
    const double drift = movedA + k * movedB + turn * inReference.centreBoundB +
                         (inFrame.translation - shift).norm() + (1.0 + 0x1p-19) * (grownA + k * grownB) +
                         std::max(0.0, double(inFrame.Slack()) - inReference.slack);
    const double centreA = double(a.CentreBound()) + movedA, centreB = double(b.CentreBound()) + movedB;
    const double magnitude = centreA + detail::LargestRadius(a, a.Proxies().NodeRadiusBounds()) + grownA +
                             k * (centreB + detail::LargestRadius(b, b.Proxies().NodeRadiusBounds()) + grownB) +
                             std::max(inFrame.translation.norm(), shift.norm()) + double(inFrame.Slack());
    const double rounding =
        4.0 * (std::max(FloatUpdateSlack(a.ModeCount()), FloatUpdateSlack(b.ModeCount())) + 0x1p-18) * magnitude;
    return drift + rounding;
}

// Keeps how the bodies stand now, what the front's clearances are measured against (`FrontDrift`).
void Remember(const DeformedBody& inA, const DeformedBody& inB, const RelativeFrame& inFrame,
              TraversalFrontAccess::Reference& outReference)
{
    const TreeState& a = *inA.state;
    const TreeState& b = *inB.state;
    outReference.valid = true;
    outReference.stateA = &a;
    outReference.stateB = &b;
    outReference.boundA = int(a.Bound());
    outReference.boundB = int(b.Bound());
    outReference.scaleA = inA.scale;
    outReference.scaleB = inB.scale;
    outReference.qA.assign(a.Q().begin(), a.Q().end());
    outReference.qB.assign(b.Q().begin(), b.Q().end());
    outReference.map = inFrame.rotation;
    outReference.shift = inFrame.translation;
    outReference.slack = double(inFrame.Slack());
    outReference.centreBoundB = double(b.CentreBound());
}

} // namespace

void CollideProxiesFromFront(DeformedBody inA, DeformedBody inB, TraversalFront& ioFront,
                             std::vector<ProxyContact>& outContacts, QueryStats& ioStats)
{
    // Every this many queries the front is rebuilt from the roots: it only deepens in between.
    constexpr std::uint32_t cRootsEvery = 16;
    // A front is kept for bodies that do not touch only when the descent from the roots needed at least this
    // many tests: a query from a front costs about as much as that many tests before it tests anything (the
    // drift bound, the reference kept), more than the two or three tests of bodies that are well apart.
    constexpr std::uint64_t cKeepApartTests = 16;
    using Access = TraversalFrontAccess;
    std::vector<TraversalFront::NodePair>& front = Access::Pairs(ioFront);
    std::vector<float>& clearances = Access::Clearances(ioFront);
    std::uint64_t& rootTests = Access::RootTests(ioFront);
    std::uint32_t& sinceRoots = Access::QueriesSinceRoots(ioFront);
    Access::Reference& reference = Access::Ref(ioFront);
    // A front is only valid for the trees and proxy levels it was made with.
    const TraversalFront::Key key = Access::KeyOf(inA, inB);
    if (Access::Key(ioFront) != key)
        ioFront.Clear();
    Access::Key(ioFront) = key;
    const bool fromRoots = front.empty() || ++sinceRoots >= cRootsEvery;
    const RelativeFrame frame(inA, inB);
    const double drift = fromRoots ? 0.0 : FrontDrift(reference, inA, inB, frame);
    const std::uint64_t testsBefore = ioStats.overlapTests;
    const std::size_t contactsBefore = outContacts.size();
    // The next front is built apart from the one being read (per thread, reused: no allocation when warm).
    thread_local std::vector<TraversalFront::NodePair> next;
    thread_local std::vector<float> nextClearances;
    FrontCarry carry;
    carry.frame = &frame;
    if (!fromRoots && drift < double(std::numeric_limits<float>::max()))
    {
        carry.clearances = clearances;
        carry.drift = RoundUpToFloat(drift);
    }
    carry.outStops = &next;
    carry.outClearances = &nextClearances;
    DescendPairs<false>(inA, inB, fromRoots ? std::span<const TraversalFront::NodePair>(cRoots) : front, &carry,
                        ioStats, AppendSphereContact(outContacts, ioStats));
    const std::uint64_t tests = ioStats.overlapTests - testsBefore;
    if (fromRoots)
    {
        rootTests = tests;
        sinceRoots = 0;
    }
    // Keep the front while it pays: it cost no more than the roots did, and the bodies touch or are close.
    if ((outContacts.size() > contactsBefore || rootTests >= cKeepApartTests) && (fromRoots || tests <= rootTests))
    {
        front.swap(next);
        clearances.swap(nextClearances);
        Access::Skipped(ioFront) = carry.skipped;
        Remember(inA, inB, frame, reference);
    }
    else
        ioFront.Clear();
}

} // namespace bdt
