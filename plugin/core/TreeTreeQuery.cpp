// Tree vs tree: simultaneous descent of two BD-Trees (CollideProxies / CollideTriangles of two bodies).

#include "TreeQueriesInternal.h"

#include "CoherentQueries.h"

#include "ProxyPairCache.h"
#include "RegionTraversal.h"
#include "TriangleGeometry.h"

#include <bdt/core/Error.h>

#include <algorithm>
#include <array>
#include <iterator>
#include <limits>
#include <numeric>
#include <utility>
#include <bdt/core/BDTree.h>
#include <cmath>
#include <span>
#include <type_traits>
#include <vector>

#if defined(__GNUC__) || defined(__clang__)
#define BDT_ALWAYS_INLINE __attribute__((always_inline))
#define BDT_COLD __attribute__((noinline, cold))
#define BDT_NOINLINE __attribute__((noinline))
#else
#define BDT_ALWAYS_INLINE
#define BDT_COLD
#define BDT_NOINLINE
#endif

namespace bdt
{

namespace
{

using detail::LargestProxyRadius;
using detail::ProxyDrift;
using detail::ProxyRounding;
using detail::WorldSphere;

// A terminal node's updated sphere placed in world, and the exact test of two terminal spheres: every path
// to a pair's contacts (the descent, the front, the pair list) places and tests its terminal spheres with
// this one machine code, never inlined, so their contacts are the same bits whatever multiply-adds the
// compiler would fuse at an inlined site.
BDT_NOINLINE WorldSphere PlaceTerminal(const DeformedBody& inBody, const UpdatedSphere& inSphere)
{
    return detail::PlaceSphere(inBody, inSphere);
}

BDT_NOINLINE bool TerminalsOverlap(const WorldSphere& inA, const WorldSphere& inB)
{
    return detail::SpheresOverlap(inA, inB);
}

// The descent culls in float, in A's rest frame (A's model units): A's updated spheres are used as they are
// and B's are mapped there. A world point is w = R_A s_A x_A + t_A = R_B s_B x_B + t_B, so x_A = M x_B + t with
// M = (s_B/s_A) R_Aᵀ R_B and t = R_Aᵀ(t_B − t_A)/s_A, and world distances divide by s_A.
//
// A pair is dropped only when its spheres miss by more than 2⁻¹⁹ of their reach plus `slack`: the float
// mapping's error (`MapB`, at most 2⁻²¹(3·‖M‖·‖c_B‖ + ‖t‖) for B's centres, bounded by
// `TreeState::CentreBound`) and the double tests' position slack at the bodies' world coordinates. That is
// far beyond the float test's own rounding (a few 2⁻²⁴ of the reach) and the double tests' slack
// (`detail::Slack`, 1e-9), so every pair the double test would accept is kept; terminal pairs are then tested
// again exactly as the contacts are measured (in double, in world, `detail::SpheresOverlap`): the contacts
// are exactly those of a descent in double.
class RelativeFrame
{
public:
    RelativeFrame(const DeformedBody& inA, const DeformedBody& inB)
    {
        const Mat3d toA = inA.pose.rotation.transpose();
        const double scaleB = inB.scale / inA.scale;
        rotation = scaleB * (toA * inB.pose.rotation);
        translation = toA * (inB.pose.translation - inA.pose.translation) / inA.scale;
        for (int row = 0; row < 3; ++row)
        {
            for (int column = 0; column < 3; ++column)
                mMap[column][row] = float(rotation(row, column));
            mMap[3][row] = float(translation[row]);
        }
        mScaleB = float(scaleB);
        const double worldExtent =
            inA.pose.translation.cwiseAbs().maxCoeff() + inB.pose.translation.cwiseAbs().maxCoeff();
        const double mapping =
            0x1p-20 * (2.0 * scaleB * double(inB.state->CentreBound()) + translation.cwiseAbs().maxCoeff());
        mSlack = RoundUpToFloat((inA.inflate + inB.inflate) / inA.scale + mapping +
                                4.0 * detail::cPositionSlack * worldExtent / inA.scale);
    }

    /// B's updated sphere in A's frame (its radius unrounded: the slack covers it).
    UpdatedSphere MapB(const UpdatedSphere& inSphere) const
    {
        UpdatedSphere mapped;
        for (int k = 0; k < 3; ++k)
            mapped.center[k] = mMap[0][k] * inSphere.center[0] + mMap[1][k] * inSphere.center[1] +
                               mMap[2][k] * inSphere.center[2] + mMap[3][k];
        mapped.radius = mScaleB * inSphere.radius;
        return mapped;
    }

    /// Whether A's sphere and B's mapped one may overlap, inflates included.
    bool Overlap(const UpdatedSphere& inA, const UpdatedSphere& inMappedB) const
    {
        return Distance2(inA, inMappedB) <= Reach(inA, inMappedB) * Reach(inA, inMappedB);
    }

    /// By how much the two spheres of a pair that `Overlap` rejected miss, beyond its reach (A's units, ≥ 0;
    /// a front pair's clearance).
    float Clearance(const UpdatedSphere& inA, const UpdatedSphere& inMappedB) const
    {
        return std::max(0.0f, std::sqrt(Distance2(inA, inMappedB)) - Reach(inA, inMappedB));
    }

    float Slack() const { return mSlack; }

    Mat3d rotation;     ///< N = (s_B/s_A) R_Aᵀ R_B, in double: B's rest frame into A's.
    Vec3d translation;  ///< u = R_Aᵀ(t_B − t_A)/s_A, in double.

private:
    static float Distance2(const UpdatedSphere& inA, const UpdatedSphere& inMappedB)
    {
        const float dx = inA.center[0] - inMappedB.center[0];
        const float dy = inA.center[1] - inMappedB.center[1];
        const float dz = inA.center[2] - inMappedB.center[2];
        return dx * dx + dy * dy + dz * dz;
    }
    float Reach(const UpdatedSphere& inA, const UpdatedSphere& inMappedB) const
    {
        return (inA.radius + inMappedB.radius) * (1.0f + 0x1p-19f) + mSlack;
    }

    float mMap[4][3];    // columns of M, then t
    float mScaleB = 1.0f; // s_B / s_A
    float mSlack = 0.0f;  // inflates, mapping error and position slack, A's units
};

// A pair of nodes whose spheres overlap, waiting to be split: the nodes, A's updated sphere (A's frame) and
// B's mapped into A's frame. 48 bytes.
struct PairEntry
{
    std::uint32_t nodeA;
    std::uint32_t nodeB;
    UpdatedSphere sphereA;
    UpdatedSphere sphereB;
};

// The children's spheres a descent computed last for a few nodes of one side (mapped into A's frame for B),
// direct-mapped by the first child: a node is split against several nodes of the other body, mostly close
// together in a level (the pairs a split makes sit side by side), and each split needs its children's
// spheres again. 36 bytes a slot.
class SiblingCache
{
public:
    SiblingCache() { std::fill(std::begin(mKeys), std::end(mKeys), 0u); }

    /// The cached pair of `inFirstChild` (a first child, never 0), or null.
    const UpdatedSphere* Find(std::uint32_t inFirstChild) const
    {
        const std::uint32_t slot = Slot(inFirstChild);
        return mKeys[slot] == inFirstChild ? mSpheres[slot] : nullptr;
    }

    /// Stores the pair of `inFirstChild` (replacing the slot's) and returns it.
    const UpdatedSphere* Store(std::uint32_t inFirstChild, const UpdatedSphere (&inSpheres)[2])
    {
        const std::uint32_t slot = Slot(inFirstChild);
        mKeys[slot] = inFirstChild;
        mSpheres[slot][0] = inSpheres[0];
        mSpheres[slot][1] = inSpheres[1];
        return mSpheres[slot];
    }

private:
    static constexpr std::uint32_t cSlots = 256;
    // Children sit at an odd index and the next one, so halving spreads consecutive families over the slots.
    static std::uint32_t Slot(std::uint32_t inFirstChild) { return (inFirstChild >> 1) & (cSlots - 1); }

    std::uint32_t mKeys[cSlots];
    UpdatedSphere mSpheres[cSlots][2];
};

// What a query from a front carries from the last one (`TraversalFront`): each start pair's clearance, the
// bound on how far any pair's gap can have closed since, and where the next front's clearances go.
struct FrontCarry
{
    const RelativeFrame* frame = nullptr; // the pair's frame, when the caller has made it
    std::span<const float> clearances; // one per start pair; empty: test every start pair
    float drift = 0.0f;                // a start pair whose clearance exceeds it still misses
    std::vector<TraversalFront::NodePair>* outStops = nullptr;
    std::vector<float>* outClearances = nullptr;
    std::size_t skipped = 0; // start pairs carried over untested
};

// The simultaneous descent of `DescendPairs` below, in its steps: the start pairs, the levels, the counts.
template <bool ToLeaves, class OnTerminal, class OnCut>
class PairDescent
{
public:
    static constexpr bool cBudgeted = !std::is_same_v<std::decay_t<OnCut>, std::nullptr_t>;
    using NodePair = TraversalFront::NodePair;

    PairDescent(const DeformedBody& inA, const DeformedBody& inB, FrontCarry* ioCarry, OnTerminal& inOnTerminal,
                std::uint64_t inMaxTests, OnCut& inOnCut)
        : mBodyA(inA), mBodyB(inB), mA(*inA.state), mB(*inB.state),
          mFrame(ioCarry != nullptr && ioCarry->frame != nullptr ? *ioCarry->frame : RelativeFrame(inA, inB)),
          mCarry(ioCarry), mOnTerminal(inOnTerminal), mOnCut(inOnCut), mMaxTests(inMaxTests),
          mProxyChildrenA(ToLeaves ? nullptr : &mA.Proxies().ChildrenBelow(0)),
          mProxyChildrenB(ToLeaves ? nullptr : &mB.Proxies().ChildrenBelow(0)), mRecordStops(ioCarry != nullptr)
    {
    }

    /// Tests the start pairs: the roots, or a front's pairs less those it carries over untested.
    void Start(std::span<const NodePair> inStart)
    {
        if (mLevel.size() < inStart.size() + 1)
            mLevel.resize(inStart.size() + 1);
        ReserveStops(inStart.size());
        if (inStart.size() == 1 && (mCarry == nullptr || mCarry->clearances.empty()))
        {
            const UpdatedSphere sphereA = mA.Sphere(inStart[0].nodeA);
            const UpdatedSphere sphereB = mFrame.MapB(mB.Sphere(inStart[0].nodeB));
            Consider(inStart[0].nodeA, inStart[0].nodeB, sphereA, sphereB, mLevel.data(), mLevelCount);
            mTests += 1;
        }
        else
            StartFromFront(inStart);
    }

    /// Splits the overlapping pairs a level at a time down to the terminal pairs (or the budget).
    void Descend()
    {
        while (mLevelCount != 0)
        {
            if (mMade.size() < 2 * mLevelCount + 1)
                mMade.resize(2 * mLevelCount + 1);
            PairEntry* const out = mMade.data();
            std::size_t madeCount = 0;
            ReserveStops(2 * mLevelCount);
            for (std::size_t i = 0; i < mLevelCount; ++i)
            {
                if constexpr (cBudgeted)
                {
                    if (mTests + 2 > mMaxTests)
                    {
                        CutAt(i, out, madeCount);
                        madeCount = 0;
                        break;
                    }
                    mTests += 2;
                }
                Split(mLevel[i], out, madeCount);
            }
            if constexpr (!cBudgeted)
                mTests += 2 * mLevelCount;
            mLevel.swap(mMade);
            mLevelCount = madeCount;
        }
    }

    /// Hands the stops to the carry and the counts to the stats and the bodies.
    void Finish(QueryStats& ioStats)
    {
        if (mRecordStops)
        {
            mCarry->outStops->assign(mStopBuffer.begin(), mStopBuffer.begin() + std::ptrdiff_t(mStopCount));
            mCarry->outClearances->assign(mClearanceBuffer.begin(),
                                          mClearanceBuffer.begin() + std::ptrdiff_t(mStopCount));
        }
        ioStats.overlapTests += mTests;
        mA.CountUpdates(mUpdatesA);
        mB.CountUpdates(mUpdatesB);
    }

private:
    // Where the traversal goes below a node: its first child, 0 at a terminal node.
    std::uint32_t ChildrenA(std::uint32_t inNode) const
    {
        return ToLeaves ? mA.Tree().Node(inNode).firstChild : mProxyChildrenA[inNode];
    }
    std::uint32_t ChildrenB(std::uint32_t inNode) const
    {
        return ToLeaves ? mB.Tree().Node(inNode).firstChild : mProxyChildrenB[inNode];
    }

    // Stops are written like kept pairs: always into the next slot, the count advanced by the outcome (a miss,
    // or a terminal pair), so recording them adds no branch to the loop. Room for `inMore` more. They go to
    // per-thread buffers that only grow (no clearing per call), copied out at the end.
    void ReserveStops(std::size_t inMore)
    {
        if (!mRecordStops)
            return;
        if (mStopBuffer.size() < mStopCount + inMore)
        {
            mStopBuffer.resize(2 * (mStopCount + inMore));
            mClearanceBuffer.resize(mStopBuffer.size());
        }
        mStops = mStopBuffer.data();
        mClearances = mClearanceBuffer.data();
    }

    // The rare outcome, out of the loop: a terminal pair to test exactly. (B's terminal spheres are computed
    // again for the exact test; those are not counted twice.)
    BDT_COLD void TestTerminal(const PairEntry& inPair)
    {
        const WorldSphere worldA = PlaceTerminal(mBodyA, inPair.sphereA);
        const WorldSphere worldB = PlaceTerminal(mBodyB, mB.ComputeSphereNow(inPair.nodeB));
        if (TerminalsOverlap(worldA, worldB))
            mOnTerminal(inPair.nodeA, inPair.nodeB, worldA, worldB);
    }

    // Tests a pair and keeps it at ioKept[ioCount] to be split if it overlaps and is not terminal; a terminal
    // overlapping one is tested exactly and reported. (Inlined: it is most of the loop.) A child is written at
    // the end of the kept ones and kept by advancing the count by its test's outcome, so the common path has no
    // branch to mispredict, and no test waits on the one before. (The pair is written straight into its slot:
    // a copy made on the stack first was read back before its stores had landed.)
    BDT_ALWAYS_INLINE void Consider(std::uint32_t inNodeA, std::uint32_t inNodeB, const UpdatedSphere& inSphereA,
                                    const UpdatedSphere& inSphereB, PairEntry* ioKept, std::size_t& ioCount)
    {
        const bool hit = mFrame.Overlap(inSphereA, inSphereB);
        const bool inner = ChildrenA(inNodeA) != 0 || ChildrenB(inNodeB) != 0;
        PairEntry& slot = ioKept[ioCount];
        slot.nodeA = inNodeA;
        slot.nodeB = inNodeB;
        slot.sphereA = inSphereA;
        slot.sphereB = inSphereB;
        ioCount += std::size_t(hit & inner);
        if (mRecordStops)
        {
            mStops[mStopCount] = {inNodeA, inNodeB};
            mClearances[mStopCount] = hit ? 0.0f : mFrame.Clearance(inSphereA, inSphereB);
            mStopCount += std::size_t(!(hit & inner));
        }
        if (hit & !inner) [[unlikely]]
            TestTerminal(slot);
    }

    // The spheres of the siblings `inFirst` and `inFirst + 1`, through the caches (B's mapped into A's frame).
    const UpdatedSphere* SiblingsA(std::uint32_t inFirst)
    {
        const UpdatedSphere* spheres = mCacheA.Find(inFirst);
        if (spheres == nullptr)
        {
            mUpdatesA += mA.ComputeSiblingSpheres(inFirst, mChildren);
            spheres = mCacheA.Store(inFirst, mChildren);
        }
        return spheres;
    }
    const UpdatedSphere* SiblingsB(std::uint32_t inFirst)
    {
        const UpdatedSphere* spheres = mCacheB.Find(inFirst);
        if (spheres == nullptr)
        {
            mUpdatesB += mB.ComputeSiblingSpheres(inFirst, mChildren);
            mChildren[0] = mFrame.MapB(mChildren[0]);
            mChildren[1] = mFrame.MapB(mChildren[1]);
            spheres = mCacheB.Store(inFirst, mChildren);
        }
        return spheres;
    }

    // Splits an overlapping pair's larger node (or the one not yet terminal) and considers the two new pairs.
    void Split(const PairEntry& inEntry, PairEntry* ioOut, std::size_t& ioCount)
    {
        const std::uint32_t splitA = ChildrenA(inEntry.nodeA);
        const std::uint32_t splitB = ChildrenB(inEntry.nodeB);
        if (splitA != 0 && (splitB == 0 || inEntry.sphereA.radius >= inEntry.sphereB.radius))
        {
            const UpdatedSphere* spheres = SiblingsA(splitA);
            Consider(splitA, inEntry.nodeB, spheres[0], inEntry.sphereB, ioOut, ioCount);
            Consider(splitA + 1, inEntry.nodeB, spheres[1], inEntry.sphereB, ioOut, ioCount);
        }
        else
        {
            const UpdatedSphere* spheres = SiblingsB(splitB);
            Consider(inEntry.nodeA, splitB, inEntry.sphereA, spheres[0], ioOut, ioCount);
            Consider(inEntry.nodeA, splitB + 1, inEntry.sphereA, spheres[1], ioOut, ioCount);
        }
    }

    // The budget is spent: every overlapping inner pair not yet split goes to `inOnCut`, those of the level
    // from `inFirst` on and those made so far, in that order, and the descent ends.
    void CutAt(std::size_t inFirst, const PairEntry* inMade, std::size_t inMadeCount)
    {
        for (std::size_t j = inFirst; j < mLevelCount; ++j)
            mOnCut(mLevel[j]);
        for (std::size_t k = 0; k < inMadeCount; ++k)
            mOnCut(inMade[k]);
        mLevelCount = 0;
    }

    // A front's pairs sit anywhere in the trees. A pair whose clearance exceeds the drift still misses: it goes
    // to the next front as it is. The others' spheres are computed from the rows (shared by every body, so
    // likely cached) rather than read from the bodies' caches, and kept in a direct-mapped table per side, since
    // a node is in several pairs of a front (B's mapped into A's frame).
    void StartFromFront(std::span<const NodePair> inStart)
    {
        const std::span<const float> carried = mCarry != nullptr ? mCarry->clearances : std::span<const float>();
        const float drift = mCarry != nullptr ? mCarry->drift : 0.0f;
        constexpr std::uint32_t cSlots = 256;
        std::uint32_t keysA[cSlots], keysB[cSlots];
        UpdatedSphere spheresA[cSlots], spheresB[cSlots];
        std::fill(std::begin(keysA), std::end(keysA), 0xffffffffu);
        std::fill(std::begin(keysB), std::end(keysB), 0xffffffffu);
        const std::uint32_t restA = mA.RestShape() ? 0u : 1u, restB = mB.RestShape() ? 0u : 1u;
        const std::size_t testedCount = CarryOrList(inStart, carried, drift);
        const std::size_t skipped = inStart.size() - testedCount;
        for (std::size_t k = 0; k < testedCount; ++k)
        {
            const NodePair start = inStart[sTested[k]];
            const std::uint32_t slotA = start.nodeA & (cSlots - 1), slotB = start.nodeB & (cSlots - 1);
            if (keysA[slotA] != start.nodeA)
            {
                keysA[slotA] = start.nodeA;
                spheresA[slotA] = mA.ComputeSphereNow(start.nodeA);
                mUpdatesA += restA;
            }
            if (keysB[slotB] != start.nodeB)
            {
                keysB[slotB] = start.nodeB;
                spheresB[slotB] = mFrame.MapB(mB.ComputeSphereNow(start.nodeB));
                mUpdatesB += restB;
            }
            Consider(start.nodeA, start.nodeB, spheresA[slotA], spheresB[slotB], mLevel.data(), mLevelCount);
        }
        mTests += inStart.size() - skipped;
        if (mCarry != nullptr)
            mCarry->skipped = skipped;
    }

    // The carried pairs first, without a branch (three in four, in no order a predictor could follow): each is
    // written as a stop, kept by advancing the count; the others are listed in `sTested`, to be tested. Returns
    // how many are listed.
    std::size_t CarryOrList(std::span<const NodePair> inStart, std::span<const float> inCarried, float inDrift)
    {
        if (sTested.size() < inStart.size())
            sTested.resize(inStart.size());
        if (inCarried.empty())
        {
            std::iota(sTested.begin(), sTested.begin() + std::ptrdiff_t(inStart.size()), 0u);
            return inStart.size();
        }
        std::size_t testedCount = 0;
        for (std::size_t i = 0; i < inStart.size(); ++i)
        {
            const bool carry = inCarried[i] > inDrift;
            // (x − d)(1 − 2⁻²⁰) in float is below x − d: the float subtraction rounds by 2⁻²⁴ of it.
            mStops[mStopCount] = inStart[i];
            mClearances[mStopCount] = (inCarried[i] - inDrift) * (1.0f - 0x1p-20f);
            mStopCount += std::size_t(carry);
            sTested[testedCount] = std::uint32_t(i);
            testedCount += std::size_t(!carry);
        }
        return testedCount;
    }

    const DeformedBody& mBodyA;
    const DeformedBody& mBodyB;
    TreeState& mA;
    TreeState& mB;
    const RelativeFrame mFrame;
    FrontCarry* const mCarry;
    OnTerminal& mOnTerminal;
    OnCut& mOnCut;
    const std::uint64_t mMaxTests;
    const std::uint32_t* const mProxyChildrenA;
    const std::uint32_t* const mProxyChildrenB;
    const bool mRecordStops;
    // Breadth first: `mLevel` holds the overlapping pairs to split, `mMade` their children as they are tested
    // (per thread, kept between calls).
    static thread_local std::vector<PairEntry> sLevel, sMade;
    static thread_local std::vector<NodePair> sStopBuffer;
    static thread_local std::vector<float> sClearanceBuffer;
    static thread_local std::vector<std::uint32_t> sTested;
    std::vector<PairEntry>& mLevel = sLevel;
    std::vector<PairEntry>& mMade = sMade;
    std::vector<NodePair>& mStopBuffer = sStopBuffer;
    std::vector<float>& mClearanceBuffer = sClearanceBuffer;
    std::size_t mLevelCount = 0;
    std::size_t mStopCount = 0;
    NodePair* mStops = nullptr;
    float* mClearances = nullptr;
    std::uint64_t mTests = 0, mUpdatesA = 0, mUpdatesB = 0;
    SiblingCache mCacheA, mCacheB; // A's children as computed, B's mapped into A's frame
    UpdatedSphere mChildren[2];
};

template <bool ToLeaves, class OnTerminal, class OnCut>
thread_local std::vector<PairEntry> PairDescent<ToLeaves, OnTerminal, OnCut>::sLevel;
template <bool ToLeaves, class OnTerminal, class OnCut>
thread_local std::vector<PairEntry> PairDescent<ToLeaves, OnTerminal, OnCut>::sMade;
template <bool ToLeaves, class OnTerminal, class OnCut>
thread_local std::vector<TraversalFront::NodePair> PairDescent<ToLeaves, OnTerminal, OnCut>::sStopBuffer;
template <bool ToLeaves, class OnTerminal, class OnCut>
thread_local std::vector<float> PairDescent<ToLeaves, OnTerminal, OnCut>::sClearanceBuffer;
template <bool ToLeaves, class OnTerminal, class OnCut>
thread_local std::vector<std::uint32_t> PairDescent<ToLeaves, OnTerminal, OnCut>::sTested;

// Simultaneous descent, breadth first, from the node pairs `inStart` down to the terminal nodes (proxies, or
// leaves with `ToLeaves`). A pair is tested when it is made; a node's children are computed only when a pair
// holding it overlapped and the node is the one split: the larger sphere, or the one not yet terminal (so the
// pairs tested are the same in any order). The children's spheres are computed from the rows and q
// (`ComputeSiblingSpheres`), not read from the bodies' caches: a pile touches thousands of bodies a step, and
// a cache line of a body's spheres is rarely still in the processor's cache when a pair reaches it, while the
// rows, shared by every body, are.
//
// Breadth first rather than depth first with a stack: a pair's test (about half overlap in a pile) decides
// only whether it is kept for the next level, so a level is one loop of independent tests whose outcomes
// never steer the loop; depth first, each outcome decided which pair came next, and half were mispredicted
// (`bdt-bench chairs` compares the two). The cost is memory: a level of k overlapping pairs makes 2k pairs of
// 48 bytes for the next (two arrays per thread, kept between calls: tens of kilobytes in a pile).
//
// Calls inOnTerminal(nodeA, nodeB, sphereA, sphereB) for each pair of terminal nodes whose world spheres
// overlap (the double test of `detail::SpheresOverlap`), each once, level by level. With `ioCarry`, writes
// every pair where the descent stopped, with its clearance (each pair whose spheres missed, and each terminal
// pair reached, clearance 0): the next front, `TraversalFront`. A start pair whose clearance exceeds the
// carry's drift is not tested: it is written as it is, its clearance reduced by the drift.
//
// With a budget (`inOnCut` not null, Mendoza & O'Sullivan's interruptible traversal), the descent tests at
// most `inMaxTests` pairs (at least the start pairs): when splitting the next pair would exceed it, it stops
// and calls inOnCut(pair) for each overlapping inner pair not yet split, those of the level being split and
// those it made, in that order. Breadth first, so what is left is a band of pairs of the coarsest levels
// not yet refined: every terminal pair the full descent would report lies under one of them or was reported.
template <bool ToLeaves, class OnTerminal, class OnCut = std::nullptr_t>
void DescendPairs(const DeformedBody& inA, const DeformedBody& inB,
                  std::span<const TraversalFront::NodePair> inStart, FrontCarry* ioCarry, QueryStats& ioStats,
                  OnTerminal&& inOnTerminal, std::uint64_t inMaxTests = 0, OnCut&& inOnCut = nullptr)
{
    PairDescent<ToLeaves, std::remove_reference_t<OnTerminal>, std::remove_reference_t<OnCut>> descent(
        inA, inB, ioCarry, inOnTerminal, inMaxTests, inOnCut);
    descent.Start(inStart);
    descent.Descend();
    descent.Finish(ioStats);
}

constexpr TraversalFront::NodePair cRoots[1] = {{0, 0}};

// Contact between two overlapping spheres: normal from B to A, depth rA + rB − distance, point midway
// between the deepest points of the two spheres along the normal. Never inlined (see `PlaceTerminal`).
BDT_NOINLINE ProxyContact SphereContact(const WorldSphere& inA, const WorldSphere& inB, std::uint32_t inNodeA,
                           std::uint32_t inNodeB)
{
    const Vec3d delta = inA.center - inB.center;
    const double distance = delta.norm();
    ProxyContact contact;
    // Coincident centres give no direction: +Y, deterministic.
    contact.normal = distance > 0.0 ? Vec3d(delta / distance) : Vec3d(Vec3d::UnitY());
    contact.depth = std::max(0.0, inA.radius + inB.radius - distance);
    contact.point =
        0.5 * ((inA.center - inA.radius * contact.normal) + (inB.center + inB.radius * contact.normal));
    contact.nodeA = inNodeA;
    contact.nodeB = inNodeB;
    return contact;
}

using WorldTriangleArray = std::array<Vec3d, 3>;

// Exact tests of every triangle of leaf A against every triangle of leaf B (in world). B's triangles are
// deformed once into ioScratch, since leaves may hold several triangles.
void TestLeafTriangles(const DeformedBody& inA, const DeformedBody& inB, std::uint32_t inNodeA,
                       std::uint32_t inNodeB, std::vector<WorldTriangleArray>& ioScratch,
                       std::vector<TrianglePair>& outPairs, QueryStats& ioStats)
{
    const BDTreeNode& leafA = inA.state->Tree().Node(inNodeA);
    const BDTreeNode& leafB = inB.state->Tree().Node(inNodeB);
    ioScratch.resize(leafB.triangleCount);
    for (std::uint32_t k = 0; k < leafB.triangleCount; ++k)
    {
        Vec3d vertices[3];
        detail::WorldTriangle(inB, leafB.firstTriangle + k, vertices);
        ioScratch[k] = {vertices[0], vertices[1], vertices[2]};
    }
    for (std::uint32_t ta = leafA.firstTriangle; ta < leafA.firstTriangle + leafA.triangleCount; ++ta)
    {
        Vec3d vertices[3];
        detail::WorldTriangle(inA, ta, vertices);
        for (std::uint32_t k = 0; k < leafB.triangleCount; ++k)
        {
            const Vec3d other[3] = {ioScratch[k][0], ioScratch[k][1], ioScratch[k][2]};
            ++ioStats.triangleTests;
            if (TrianglesIntersect(vertices, other))
            {
                outPairs.push_back({ta, leafB.firstTriangle + k});
                ++ioStats.contacts;
            }
        }
    }
}

// The proxy contact of each overlapping terminal pair.
auto AppendSphereContact(std::vector<ProxyContact>& outContacts, QueryStats& ioStats)
{
    return [&outContacts, &ioStats](std::uint32_t inNodeA, std::uint32_t inNodeB,
                                    const WorldSphere& inSphereA, const WorldSphere& inSphereB)
    {
        outContacts.push_back(SphereContact(inSphereA, inSphereB, inNodeA, inNodeB));
        ++ioStats.contacts;
    };
}

} // namespace

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

void CollideProxies(DeformedBody inA, DeformedBody inB, std::vector<ProxyContact>& outContacts,
                    QueryStats& ioStats)
{
    DescendPairs<false>(inA, inB, cRoots, nullptr, ioStats, AppendSphereContact(outContacts, ioStats));
}

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

bool CollideProxiesBudgeted(DeformedBody inA, DeformedBody inB, std::uint64_t inMaxTests,
                            std::vector<ProxyContact>& outContacts, QueryStats& ioStats)
{
    bool interrupted = false;
    TreeState& b = *inB.state;
    DescendPairs<false>(
        inA, inB, cRoots, nullptr, ioStats, AppendSphereContact(outContacts, ioStats), std::max<std::uint64_t>(inMaxTests, 1),
        [&](const PairEntry& inPair)
        {
            // An untested band pair: the contact of its two spheres (centre to centre), if they overlap in the
            // double test as terminal pairs must.
            interrupted = true;
            const WorldSphere worldA = PlaceTerminal(inA, inPair.sphereA);
            const WorldSphere worldB = PlaceTerminal(inB, b.ComputeSphereNow(inPair.nodeB));
            if (TerminalsOverlap(worldA, worldB))
            {
                outContacts.push_back(SphereContact(worldA, worldB, inPair.nodeA, inPair.nodeB));
                ++ioStats.contacts;
                ++ioStats.approximateContacts;
            }
        });
    return interrupted;
}

namespace
{

// One side of the box-culled descent: the body, its box rows, q as the box update reads it, how far its boxes are
// grown (world units), and the last few boxes computed (direct-mapped by node: a node is tested against several
// nodes of the other body).
class BoxSide
{
public:
    BoxSide(const DeformedBody& inBody, const BDAabbTree& inBoxes) : mBody(inBody), mBoxes(inBoxes)
    {
        const auto q = inBody.state->Q();
        mQq.resize(8 * q.size());
        MakeBoxUpdateInput(q, mQq.data());
        std::fill(std::begin(mKeys), std::end(mKeys), 0xffffffffu);
        // A proxy's updated sphere lies within its geometry's box grown by 2R' per axis: its centre c' is within
        // R' − R of the deformed vertices' hull (|Ū_p q − Σβ_i U_i q| ≤ ΔRᵀ|q|, and ≤ δR_tight‖q‖, for the convex
        // β with c = Σβ_i p_i), its radius R'. So a node's box grown by twice the largest proxy radius holds the
        // spheres of the proxies below it, and culling with it loses no sphere contact.
        const TreeState& state = *inBody.state;
        mGrowth = inBody.scale * (2.0 * detail::LargestProxyRadius(state) * (1.0 + 1e-6) + detail::ProxyRounding(state)) +
                  inBody.inflate;
    }

    /// Node `inNode`'s grown box in world (axes those of the pose).
    const WorldBox& Box(std::uint32_t inNode, std::uint64_t& ioUpdates)
    {
        const std::uint32_t slot = inNode & (cSlots - 1);
        if (mKeys[slot] != inNode)
        {
            UpdatedBox box;
            UpdateBox(mBoxes.Row(inNode), mQq.data(), mBoxes.ModeCount(), box);
            mWorld[slot].center = mBody.pose.Apply(mBody.scale * Vec3d(box.center[0], box.center[1], box.center[2]));
            mWorld[slot].halfExtents =
                (mBody.scale * Vec3d(box.halfExtents[0], box.halfExtents[1], box.halfExtents[2])).array() + mGrowth;
            mKeys[slot] = inNode;
            ++ioUpdates;
        }
        return mWorld[slot];
    }

private:
    static constexpr std::uint32_t cSlots = 64;
    const DeformedBody& mBody;
    const BDAabbTree& mBoxes;
    AlignedVector<float> mQq;
    double mGrowth = 0.0;
    std::uint32_t mKeys[cSlots];
    WorldBox mWorld[cSlots];
};

} // namespace

void CollideProxiesWithBoxes(DeformedBody inA, DeformedBody inB, const BDAabbTree& inBoxesA,
                             const BDAabbTree& inBoxesB, std::vector<ProxyContact>& outContacts, QueryStats& ioStats)
{
    if (&inBoxesA.Tree() != &inA.state->Tree() || &inBoxesB.Tree() != &inB.state->Tree())
        throw Error("CollideProxiesWithBoxes: box rows of another tree");
    if (inA.state->TemporalCoherence() || inB.state->TemporalCoherence())
    {
        // Spheres kept across steps (§3.5) are not those of the current q the boxes bound.
        CollideProxies(inA, inB, outContacts, ioStats);
        return;
    }
    BoxSide sideA(inA, inBoxesA), sideB(inB, inBoxesB);
    const BoxOverlapTest boxesOverlap(inA.pose.rotation, inB.pose.rotation);
    const ContactProxies& proxiesA = inA.state->Proxies();
    const ContactProxies& proxiesB = inB.state->Proxies();
    std::uint64_t updatesA = 0, updatesB = 0;
    thread_local std::vector<TraversalFront::NodePair> stack;
    stack.assign(1, {0, 0});
    while (!stack.empty())
    {
        const TraversalFront::NodePair pair = stack.back();
        stack.pop_back();
        // The spheres first (a few flops), then the boxes: a pair goes on only if both overlap.
        const WorldSphere sphereA = PlaceTerminal(inA, inA.state->Sphere(pair.nodeA));
        const WorldSphere sphereB = PlaceTerminal(inB, inB.state->Sphere(pair.nodeB));
        ++ioStats.overlapTests;
        if (!TerminalsOverlap(sphereA, sphereB))
            continue;
        const std::uint32_t splitA = proxiesA.ChildrenBelow(pair.nodeA);
        const std::uint32_t splitB = proxiesB.ChildrenBelow(pair.nodeB);
        if (splitA == 0 && splitB == 0)
        {
            outContacts.push_back(SphereContact(sphereA, sphereB, pair.nodeA, pair.nodeB));
            ++ioStats.contacts;
            continue;
        }
        // Copies: the other side's next box may take the same slot.
        const WorldBox a = sideA.Box(pair.nodeA, updatesA);
        const WorldBox b = sideB.Box(pair.nodeB, updatesB);
        ++ioStats.overlapTests;
        if (!boxesOverlap(a, b))
            continue;
        if (splitA != 0 && (splitB == 0 || sphereA.radius >= sphereB.radius))
        {
            stack.push_back({splitA + 1, pair.nodeB});
            stack.push_back({splitA, pair.nodeB});
        }
        else
        {
            stack.push_back({pair.nodeA, splitB + 1});
            stack.push_back({pair.nodeA, splitB});
        }
    }
    inA.state->CountUpdates(updatesA);
    inB.state->CountUpdates(updatesB);
}

namespace
{

// A ball containing the intersection of balls (c1, r1) and (c2, r2): the ball through the circle where their
// spheres meet when each cap of the lens is at most a hemisphere, else the smaller ball. False when they do
// not intersect.
bool LensBall(const Vec3d& inC1, double inR1, const Vec3d& inC2, double inR2, Vec3d& outCentre, double& outRadius)
{
    const double d = (inC2 - inC1).norm();
    if (d > inR1 + inR2)
        return false;
    outCentre = inR1 <= inR2 ? inC1 : inC2;
    outRadius = std::min(inR1, inR2);
    if (d <= 0.0)
        return true;
    // Distance from c1 to the plane of the circle; the circle's radius.
    const double along = (d * d + inR1 * inR1 - inR2 * inR2) / (2.0 * d);
    if (along < 0.0 || along > d)
        return true;
    const double circle = std::sqrt(std::max(0.0, inR1 * inR1 - along * along));
    if (circle < outRadius)
    {
        outCentre = inC1 + (along / d) * (inC2 - inC1);
        outRadius = circle * (1.0 + 1e-9) + 1e-12 * (inR1 + inR2);
    }
    return true;
}

// B's frame in A's, world-scaled: N = s_B R_Aᵀ R_B and u = R_Aᵀ(t_B − t_A), so a world gap between a proxy of
// A at c_a and one of B at c_b is ‖s_A c_a − N c_b − u‖ − s_A r_a − s_B r_b (less the inflates).
struct PairPlacement
{
    Mat3d rotation;
    Vec3d translation;
};

// The skin band of a kept pair whose terminal spheres do not overlap (`SkinBandOfGap`), with a margin far
// above the gap's rounding.
std::uint32_t BandOfGap(const WorldSphere& inA, const WorldSphere& inB, double inSkin)
{
    const double reach = inA.radius + inB.radius;
    const double margin =
        1e-6 * (reach + inSkin) + 1e-12 * (inA.center.cwiseAbs().maxCoeff() + inB.center.cwiseAbs().maxCoeff());
    return SkinBandOfGap(inSkin, (inA.center - inB.center).norm() - reach, margin);
}

PairPlacement PlacementOf(const DeformedBody& inA, const DeformedBody& inB)
{
    const Mat3d toA = inA.pose.rotation.transpose();
    return {inB.scale * (toA * inB.pose.rotation), toA * (inB.pose.translation - inA.pose.translation)};
}

// The double tests' slack (`detail::SpheresOverlap`) for spheres up to `inExtent` from the bodies' origins:
// its relative part on the reach and its part on the coordinates, with room.
double TestSlack(const DeformedBody& inA, const DeformedBody& inB, double inExtent, double inReach)
{
    const double coordinates = inA.pose.translation.cwiseAbs().maxCoeff() +
                               inB.pose.translation.cwiseAbs().maxCoeff() + inExtent;
    return 4.0 * (detail::cRelativeSlack * (inReach + inExtent) + detail::cPositionSlack * coordinates);
}

} // namespace

/// Grants the queries access to a pair cache's state.
struct ProxyPairCacheAccess
{
    static ProxyPairCache::Key KeyOf(const DeformedBody& inA, const DeformedBody& inB)
    {
        return {inA.state,
                inB.state,
                &inA.state->Proxies(),
                &inB.state->Proxies(),
                int(inA.state->Bound()),
                int(inB.state->Bound()),
                inA.scale,
                inB.scale};
    }

    // Whether the list answers this query. A pair (a, b) within reach now was within reach + s when the list
    // was made if its gap can have closed by at most s since: the proxies' drift in their bodies' frames, the
    // motion of B's frame in A's (B's centres c_b mapped by N c_b + u), the reach's growth and the rounding
    // of the spheres then and now. B's frame's motion moves c_b by (N − N₀)c_b + (u − u₀) = [(N − N₀)p +
    // (u − u₀)] + (N − N₀)(c_b − p) for any pivot p: the motion of p, plus the turn times how far c_b is from
    // p. Only B's proxies that can touch A now matter, and those lie in A's root sphere (it wraps A's proxies)
    // widened by the reach and B's largest proxy, and in B's root sphere: p and the distance are taken from
    // the ball around that lens (widened by B's drift: where those centres were then), so two bodies resting
    // on each other are limited by their turn times the size of their contact zone, not of the bodies.
    //
    // Returns that bound (world units): the list answers if it is within the skin, and then only pairs of the
    // bands it is within can be within reach (`SkinBandForBound`).
    static double Bound(const ProxyPairCache& inCache, const DeformedBody& inA, const DeformedBody& inB,
                        const PairPlacement& inPlacement, double inRounding)
    {
        const TreeState& a = *inA.state;
        const TreeState& b = *inB.state;
        const double reach = inA.inflate + inB.inflate;
        // How far the bodies' spheres reach from their origins, for the tests' slack on the coordinates.
        const double extent = inA.scale * 2.0 * double(a.CentreBound()) + inB.scale * 2.0 * double(b.CentreBound());
        const double slack = TestSlack(inA, inB, extent, reach + inCache.mSkin);
        const double driftA = inA.scale * ProxyDrift(a, inCache.mQA);
        const double driftB = inB.scale * ProxyDrift(b, inCache.mQB);
        // The lens in B's frame, world-scaled (s_B times B's model units).
        const UpdatedSphere rootA = a.ComputeSphereNow(0);
        const UpdatedSphere rootB = b.ComputeSphereNow(0);
        const Mat3d& rotation = inPlacement.rotation; // N = s_B R_rel
        const Vec3d centreA =
            rotation.transpose() * (inA.scale * Vec3d(rootA.center[0], rootA.center[1], rootA.center[2]) -
                                    inPlacement.translation) /
            inB.scale; // s_B N⁻¹ = Nᵀ / s_B
        const Vec3d centreB = inB.scale * Vec3d(rootB.center[0], rootB.center[1], rootB.center[2]);
        const double largestProxyB = inB.scale * LargestProxyRadius(b);
        const double radiusA = inA.scale * double(rootA.radius) + reach + largestProxyB + inRounding + slack;
        const double radiusB = inB.scale * double(rootB.radius) + inRounding + slack;
        Vec3d pivot;
        double spread;
        if (!LensBall(centreA, radiusA, centreB, radiusB, pivot, spread))
            return 0.0; // no proxy of B can touch A now: the descent finds nothing, and neither does the list
        pivot /= inB.scale;                                  // B's model units
        spread = spread * (1.0 + 1e-9) + driftB + inRounding; // where those centres were then, world-scaled
        const Mat3d turn = rotation - inCache.mRotation;
        const Vec3d columns[3] = {turn.col(0), turn.col(1), turn.col(2)};
        const double turnNorm = SpectralNormBound(columns) / inB.scale; // ≥ ‖R_rel − R_rel₀‖₂
        const double closing = driftA + driftB + (turn * pivot + (inPlacement.translation - inCache.mTranslation)).norm() +
                               turnNorm * spread;
        return closing * (1.0 + 1e-9) + (reach - inCache.mReach) + inRounding + inCache.mRounding + slack;
    }

    // The float rounding of both bodies' spheres now, world units.
    static double Rounding(const DeformedBody& inA, const DeformedBody& inB)
    {
        return inA.scale * ProxyRounding(*inA.state) + inB.scale * ProxyRounding(*inB.state);
    }

    // Each kept pair of bands 1..`inBand` tested exactly as the descent tests a terminal pair; each of their
    // proxies' spheres computed once (a proxy is in several pairs). The pairs of the other bands cannot be
    // within reach (`Bound`).
    static void AnswerFromList(ProxyPairCache& ioCache, const DeformedBody& inA, const DeformedBody& inB,
                               std::uint32_t inBand, std::vector<ProxyContact>& outContacts, QueryStats& ioStats)
    {
        const std::uint32_t nodesA = ioCache.mNodesAUpTo[inBand - 1];
        const std::uint32_t nodesB = ioCache.mNodesBUpTo[inBand - 1];
        const std::uint32_t pairs = ioCache.mPairsUpTo[inBand - 1];
        thread_local std::vector<WorldSphere> spheresA, spheresB;
        spheresA.resize(nodesA);
        spheresB.resize(nodesB);
        for (std::uint32_t i = 0; i < nodesA; ++i)
            spheresA[i] = PlaceTerminal(inA, inA.state->ComputeSphereNow(ioCache.mNodesA[i]));
        for (std::uint32_t i = 0; i < nodesB; ++i)
            spheresB[i] = PlaceTerminal(inB, inB.state->ComputeSphereNow(ioCache.mNodesB[i]));
        std::uint64_t contacts = 0;
        for (std::uint32_t p = 0; p < pairs; ++p)
        {
            const ProxyPairCache::KeptPair& pair = ioCache.mPairs[p];
            const WorldSphere& worldA = spheresA[pair.indexA];
            const WorldSphere& worldB = spheresB[pair.indexB];
            if (TerminalsOverlap(worldA, worldB))
            {
                outContacts.push_back(
                    SphereContact(worldA, worldB, ioCache.mNodesA[pair.indexA], ioCache.mNodesB[pair.indexB]));
                ++contacts;
            }
        }
        ioStats.overlapTests += pairs;
        ioStats.contacts += contacts;
        inA.state->CountUpdates(inA.state->RestShape() ? 0 : nodesA);
        inB.state->CountUpdates(inB.state->RestShape() ? 0 : nodesB);
    }

    static void Query(DeformedBody inA, DeformedBody inB, ProxyPairCache& ioCache,
                      std::vector<ProxyContact>& outContacts, QueryStats& ioStats)
    {
        ProxyPairCache& cache = ioCache;
        TreeState& a = *inA.state;
        TreeState& b = *inB.state;
        const ProxyPairCache::Key key = KeyOf(inA, inB);
        const auto bandNow = [&]
        { return SkinBandForBound(cache.mSkin, Bound(cache, inA, inB, PlacementOf(inA, inB), Rounding(inA, inB))); };
        const auto answer = [&](std::uint32_t inBand) { AnswerFromList(cache, inA, inB, inBand, outContacts, ioStats); };
        const auto descend = [&] { CollideProxies(inA, inB, outContacts, ioStats); };
        const auto makeList = [&]
        {
            // The descent from the roots with A's reach widened by the skin: every proxy pair within reach + skin
            // is kept, and those within the reach give contacts, tested as the descent would (B's sphere as it
            // placed it; A's placed again without the skin). A kept pair's band: 1 if it is within the reach, else
            // the first widening k·s/4 that covers its gap (`BandOfGap`).
            DeformedBody wideA = inA;
            wideA.inflate += cache.mSkin;
            std::uint64_t contacts = 0;
            thread_local std::vector<TraversalFront::NodePair> found;
            thread_local std::vector<std::uint8_t> bands;
            found.clear();
            bands.clear();
            DescendPairs<false>(wideA, inB, cRoots, nullptr, ioStats,
                                [&](std::uint32_t inNodeA, std::uint32_t inNodeB, const WorldSphere&,
                                    const WorldSphere& inWorldB)
                                {
                                    found.push_back({inNodeA, inNodeB});
                                    const WorldSphere worldA = PlaceTerminal(inA, a.ComputeSphereNow(inNodeA));
                                    std::uint32_t band = 1;
                                    if (TerminalsOverlap(worldA, inWorldB))
                                    {
                                        outContacts.push_back(SphereContact(worldA, inWorldB, inNodeA, inNodeB));
                                        ++contacts;
                                    }
                                    else
                                        band = BandOfGap(worldA, inWorldB, cache.Skin());
                                    bands.push_back(std::uint8_t(band));
                                });
            ioStats.contacts += contacts;
            a.CountUpdates(a.RestShape() ? 0 : found.size());
            cache.Keep(found, bands);
            cache.mQA.assign(a.Q().begin(), a.Q().end());
            cache.mQB.assign(b.Q().begin(), b.Q().end());
            const PairPlacement placement = PlacementOf(inA, inB);
            cache.mRotation = placement.rotation;
            cache.mTranslation = placement.translation;
            cache.mReach = inA.inflate + inB.inflate;
            cache.mRounding = Rounding(inA, inB);
            cache.mKey = key;
        };
        cache.Answer(!(cache.mSkin <= 0.0) && !a.TemporalCoherence() && !b.TemporalCoherence(), cache.mKey == key, bandNow,
                     answer, descend, makeList);
    }
};

namespace
{

// The distinct nodes of one side of the kept pairs, ordered by the first band that needs them and then
// ascending, with how many bands 1..k need (cumulative), and for each pair the index of its node. One sort of
// (node, band) keys; the rest is linear but for a binary search a pair.
void OrderNodes(std::span<const TraversalFront::NodePair> inPairs, std::span<const std::uint8_t> inBands,
                std::uint32_t TraversalFront::NodePair::*inSide, std::vector<std::uint32_t>& outNodes,
                std::array<std::uint32_t, cSkinBands>& outUpTo, std::vector<std::uint32_t>& outIndex)
{
    // Node in the high bits, band in the low byte: sorted, a node's first key holds its first band.
    thread_local std::vector<std::uint64_t> keys;
    keys.clear();
    for (std::size_t i = 0; i < inPairs.size(); ++i)
        keys.push_back(std::uint64_t(inPairs[i].*inSide) << 8 | inBands[i]);
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end(),
                           [](std::uint64_t inL, std::uint64_t inR) { return inL >> 8 == inR >> 8; }),
               keys.end());
    // Counted into bands, ascending within each: position[i] is where distinct node i (by node) goes.
    outUpTo.fill(0);
    for (const std::uint64_t key : keys)
        ++outUpTo[(key & 0xff) - 1];
    std::array<std::uint32_t, cSkinBands> next{}; // where band k's next node goes: the count of bands 1..k−1
    for (std::uint32_t band = 1; band < cSkinBands; ++band)
    {
        outUpTo[band] += outUpTo[band - 1];
        next[band] = outUpTo[band - 1];
    }
    thread_local std::vector<std::uint32_t> position;
    position.resize(keys.size());
    outNodes.resize(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i)
    {
        const std::uint32_t at = next[(keys[i] & 0xff) - 1]++;
        position[i] = at;
        outNodes[at] = std::uint32_t(keys[i] >> 8);
    }
    outIndex.resize(inPairs.size());
    for (std::size_t i = 0; i < inPairs.size(); ++i)
    {
        const std::uint64_t node = inPairs[i].*inSide;
        const auto at = std::lower_bound(keys.begin(), keys.end(), node << 8);
        outIndex[i] = position[std::size_t(at - keys.begin())];
    }
}

} // namespace

void ProxyPairCache::Keep(std::span<const TraversalFront::NodePair> inPairs, std::span<const std::uint8_t> inBands)
{
    thread_local std::vector<std::uint32_t> indexA, indexB;
    OrderNodes(inPairs, inBands, &TraversalFront::NodePair::nodeA, mNodesA, mNodesAUpTo, indexA);
    OrderNodes(inPairs, inBands, &TraversalFront::NodePair::nodeB, mNodesB, mNodesBUpTo, indexB);
    // The pairs by band, in the descent's order within a band.
    std::array<std::uint32_t, cSkinBands> next{};
    mPairsUpTo.fill(0);
    for (const std::uint8_t band : inBands)
        ++mPairsUpTo[band - 1];
    for (std::uint32_t band = 1; band < cSkinBands; ++band)
    {
        mPairsUpTo[band] += mPairsUpTo[band - 1];
        next[band] = mPairsUpTo[band - 1];
    }
    mPairs.resize(inPairs.size());
    for (std::size_t i = 0; i < inPairs.size(); ++i)
        mPairs[next[inBands[i] - 1]++] = {indexA[i], indexB[i]};
}

void CollideProxiesCached(DeformedBody inA, DeformedBody inB, ProxyPairCache& ioCache,
                          std::vector<ProxyContact>& outContacts, QueryStats& ioStats)
{
    ProxyPairCacheAccess::Query(inA, inB, ioCache, outContacts, ioStats);
}

void CollideTriangles(DeformedBody inA, DeformedBody inB, std::vector<TrianglePair>& outPairs,
                      QueryStats& ioStats)
{
    std::vector<WorldTriangleArray> scratch;
    DescendPairs<true>(inA, inB, cRoots, nullptr, ioStats,
                 [&](std::uint32_t inNodeA, std::uint32_t inNodeB, const WorldSphere&, const WorldSphere&)
                 { TestLeafTriangles(inA, inB, inNodeA, inNodeB, scratch, outPairs, ioStats); });
}

} // namespace bdt
