#include "SurfaceCache.h"

#include <algorithm>
#include <limits>

namespace bdt
{

void SurfaceCache::Make(const DeformedBody& inBody, const ProxyPatches& inPatches, std::uint32_t inProxy,
                        PlacedPatch& outPatch)
{
    const TreeState& state = *inBody.state;
    const Model& model = state.Tree().GetModel();
    const std::span<const std::uint32_t> vertices = inPatches.Vertices(inProxy);
    outPatch.vertices.resize(vertices.size());
    for (std::size_t i = 0; i < vertices.size(); ++i)
        outPatch.vertices[i] =
            inBody.pose.Apply(inBody.scale * model.DeformedPosition(vertices[i], state.Q()));
    if (!TreeState::InConcurrentScope())
        mDeformed += vertices.size();

    const auto triangles = inPatches.Triangles(inProxy);
    outPatch.normals.resize(triangles.size());
    for (std::size_t t = 0; t < triangles.size(); ++t)
    {
        const Vec3d& a = outPatch.vertices[triangles[t][0]];
        const Vec3d normal =
            (outPatch.vertices[triangles[t][1]] - a).cross(outPatch.vertices[triangles[t][2]] - a);
        const double length = normal.norm();
        outPatch.normals[t] = length > 0.0 ? Vec3d(normal / length) : Vec3d(Vec3d::Zero());
    }
    const std::uint32_t own = inPatches.OwnTriangleCount(inProxy);
    outPatch.faceBoxes.resize(own);
    outPatch.box.setEmpty();
    Vec3d axis = Vec3d::Zero();
    for (std::uint32_t t = 0; t < own; ++t)
    {
        Aabb& face = outPatch.faceBoxes[t];
        face.setEmpty();
        for (const std::uint32_t corner : triangles[t])
            face.extend(outPatch.vertices[corner]);
        outPatch.box.extend(face);
        const Vec3d& a = outPatch.vertices[triangles[t][0]];
        axis += (outPatch.vertices[triangles[t][1]] - a).cross(outPatch.vertices[triangles[t][2]] - a);
    }
    const double length = axis.norm();
    outPatch.axis = length > 0.0 ? Vec3d(axis / length) : Vec3d(Vec3d::Zero());
    outPatch.axisLow = std::numeric_limits<double>::infinity();
    outPatch.axisHigh = -outPatch.axisLow;
    for (std::uint32_t v = 0; v < inPatches.TriangleVertexCount(inProxy); ++v)
    {
        const double along = outPatch.axis.dot(outPatch.vertices[v]);
        outPatch.axisLow = std::min(outPatch.axisLow, along);
        outPatch.axisHigh = std::max(outPatch.axisHigh, along);
    }
    const UpdatedSphere sphere = state.ComputeSphereNow(inProxy);
    outPatch.bound.center =
        inBody.pose.Apply(inBody.scale * Vec3d(sphere.center[0], sphere.center[1], sphere.center[2]));
    outPatch.bound.radius = inBody.scale * double(sphere.radius) * (1.0 + 1e-9) + 1e-12;
}

bool SurfaceCache::Current(const DeformedBody& inBody, const ProxyPatches& inPatches) const
{
    return mValid && mPatches == &inPatches && mVersion == inBody.state->Version() &&
           mScale == inBody.scale && mPose.translation == inBody.pose.translation &&
           mPose.rotation == inBody.pose.rotation;
}

const PlacedPatch& SurfaceCache::Place(const DeformedBody& inBody, const ProxyPatches& inPatches,
                                       std::uint32_t inProxy, PlacedPatch& ioScratch, QueryStats* ioStats)
{
    const auto count = [ioStats](bool inMade)
    {
        if (ioStats != nullptr)
            ++(inMade ? ioStats->patchesMade : ioStats->patchesReused);
    };
    if (TreeState::InConcurrentScope())
    {
        // The cache is shared by the pairs other threads are running: this thread's own storage.
        Make(inBody, inPatches, inProxy, ioScratch);
        count(true);
        return ioScratch;
    }
    if (!Current(inBody, inPatches))
    {
        for (const std::uint32_t node : mTouched)
            if (node < mSlot.size())
                mSlot[node] = 0;
        mTouched.clear();
        if (mPatches != &inPatches)
            mSlot.assign(inPatches.Proxies().VisitCount(), 0);
        mPatches = &inPatches;
        mVersion = inBody.state->Version();
        mPose = inBody.pose;
        mScale = inBody.scale;
        mValid = true;
    }
    if (inProxy >= mSlot.size())
    {
        Make(inBody, inPatches, inProxy, ioScratch);
        count(true);
        return ioScratch;
    }
    count(mSlot[inProxy] == 0);
    if (mSlot[inProxy] == 0)
    {
        if (mTouched.size() == mPlaced.size())
            mPlaced.emplace_back();
        Make(inBody, inPatches, inProxy, mPlaced[mTouched.size()]);
        mTouched.push_back(inProxy);
        mSlot[inProxy] = std::uint32_t(mTouched.size());
    }
    return mPlaced[mSlot[inProxy] - 1];
}

const PlacedPatch& SurfaceCache::PlaceApart(const DeformedBody& inBody, const ProxyPatches& inPatches,
                                            std::uint32_t inProxy, PlacedPatch& ioScratch, QueryStats* ioStats)
{
    Make(inBody, inPatches, inProxy, ioScratch);
    if (ioStats != nullptr)
        ++ioStats->patchesMade;
    return ioScratch;
}

std::size_t SurfaceCache::MemoryBytes() const
{
    std::size_t bytes = (mSlot.capacity() + mTouched.capacity()) * sizeof(std::uint32_t);
    for (const PlacedPatch& patch : mPlaced)
        bytes += sizeof(PlacedPatch) +
                 (patch.vertices.capacity() + patch.normals.capacity()) * sizeof(Vec3d) +
                 patch.faceBoxes.capacity() * sizeof(Aabb);
    return bytes;
}

PatchView PlacePatch(const DeformedBody& inBody, const ProxyPatches& inPatches, std::uint32_t inProxy,
                     SurfaceCache& ioCache, double inMargin, double inDepthLimit, PlacedPatch& ioScratch,
                     QueryStats* ioStats, EPatchStorage inStorage)
{
    const PlacedPatch& placed = inStorage == EPatchStorage::Scratch
                                    ? ioCache.PlaceApart(inBody, inPatches, inProxy, ioScratch, ioStats)
                                    : ioCache.Place(inBody, inPatches, inProxy, ioScratch, ioStats);
    PatchView view;
    view.patches = &inPatches;
    view.proxy = inProxy;
    view.vertices = placed.vertices;
    view.normals = placed.normals;
    view.box = placed.box;
    view.faceBoxes = placed.faceBoxes;
    view.axis = placed.axis;
    view.axisLow = placed.axisLow;
    view.axisHigh = placed.axisHigh;
    view.bound = placed.bound;
    view.margin = inMargin;
    view.depthLimit = inDepthLimit;
    view.stats = ioStats;
    return view;
}

} // namespace bdt
