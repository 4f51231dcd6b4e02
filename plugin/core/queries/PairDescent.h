#pragma once

// The simultaneous descent of two BD-Trees, shared by the tree-vs-tree queries (TreeTreeQuery.cpp, and from
// a front or a pair list, TraversalFront.cpp and ProxyPairCache.cpp): B's frame in A's in float
// (`RelativeFrame`), the breadth-first descent (`PairDescent`, `DescendPairs`), and the exact test and contact
// of a terminal pair (defined once, in TreeTreeQuery.cpp). Private to plugin/core.

#include "TraversalFront.h"
#include "TreeQueriesInternal.h"

#include <bdt/core/bounds/BDTree.h>
#include <bdt/core/geometry/Contact.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <numeric>
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

namespace bdt::detail
{

// A terminal node's updated sphere placed in world, and the exact test of two terminal spheres: every path
// to a pair's contacts (the descent, the front, the pair list) places and tests its terminal spheres with
// this one machine code, never inlined, so their contacts are the same bits whatever multiply-adds the
// compiler would fuse at an inlined site.
BDT_NOINLINE WorldSphere PlaceTerminal(const DeformedBody& inBody, const UpdatedSphere& inSphere);
BDT_NOINLINE bool TerminalsOverlap(const WorldSphere& inA, const WorldSphere& inB);

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

inline constexpr TraversalFront::NodePair cRoots[1] = {{0, 0}};

// Contact between two overlapping spheres: normal from B to A, depth rA + rB − distance, point midway
// between the deepest points of the two spheres along the normal. Never inlined (see `PlaceTerminal`).
BDT_NOINLINE ProxyContact SphereContact(const WorldSphere& inA, const WorldSphere& inB, std::uint32_t inNodeA,
                                        std::uint32_t inNodeB);

// The proxy contact of each overlapping terminal pair.
inline auto AppendSphereContact(std::vector<ProxyContact>& outContacts, QueryStats& ioStats)
{
    return [&outContacts, &ioStats](std::uint32_t inNodeA, std::uint32_t inNodeB,
                                    const WorldSphere& inSphereA, const WorldSphere& inSphereB)
    {
        outContacts.push_back(SphereContact(inSphereA, inSphereB, inNodeA, inNodeB));
        ++ioStats.contacts;
    };
}

} // namespace bdt::detail
