#include <bdt/core/SurfaceCache.h>

namespace bdt
{

void SurfaceCache::Deform(const TreeState& inState, std::span<const std::uint32_t> inVertices,
                          Vec3d* outPositions)
{
    const Model& model = inState.Tree().GetModel();
    const std::span<const float> q = inState.Q();
    for (std::size_t i = 0; i < inVertices.size(); ++i)
        outPositions[i] = model.DeformedPosition(inVertices[i], q);
    mDeformed += inVertices.size();
}

std::span<const Vec3d> SurfaceCache::Vertices(const TreeState& inState, const ProxyPatches& inPatches,
                                              std::uint32_t inProxy)
{
    const std::span<const std::uint32_t> vertices = inPatches.Vertices(inProxy);
    if (TreeState::InConcurrentScope())
    {
        // Storage of this thread's own: the cache is shared by the pairs other threads are running.
        thread_local std::vector<Vec3d> own;
        own.resize(vertices.size());
        const Model& model = inState.Tree().GetModel();
        for (std::size_t i = 0; i < vertices.size(); ++i)
            own[i] = model.DeformedPosition(vertices[i], inState.Q());
        return own;
    }
    if (!mValid || mVersion != inState.Version() || mPatches != &inPatches)
    {
        for (const std::uint32_t node : mTouched)
            if (node < mSlot.size())
                mSlot[node] = 0;
        mTouched.clear();
        mPositions.clear();
        if (mPatches != &inPatches)
            mSlot.assign(inPatches.Proxies().VisitCount(), 0);
        mPatches = &inPatches;
        mVersion = inState.Version();
        mValid = true;
    }
    if (inProxy >= mSlot.size())
        return {};
    if (mSlot[inProxy] == 0)
    {
        const std::size_t offset = mPositions.size();
        mPositions.resize(offset + vertices.size());
        Deform(inState, vertices, mPositions.data() + offset);
        mSlot[inProxy] = std::uint32_t(offset + 1);
        mTouched.push_back(inProxy);
    }
    return std::span<const Vec3d>(mPositions).subspan(mSlot[inProxy] - 1, vertices.size());
}

std::size_t SurfaceCache::MemoryBytes() const
{
    return (mSlot.capacity() + mTouched.capacity()) * sizeof(std::uint32_t) +
           mPositions.capacity() * sizeof(Vec3d);
}

PatchView PlacePatch(const DeformedBody& inBody, const ProxyPatches& inPatches, std::uint32_t inProxy,
                     SurfaceCache& ioCache, double inMargin, double inDepthLimit, PatchScratch& ioScratch)
{
    const std::span<const Vec3d> rest = ioCache.Vertices(*inBody.state, inPatches, inProxy);
    ioScratch.vertices.resize(rest.size());
    for (std::size_t i = 0; i < rest.size(); ++i)
        ioScratch.vertices[i] = inBody.pose.Apply(inBody.scale * rest[i]);
    const auto triangles = inPatches.Triangles(inProxy);
    ioScratch.normals.resize(triangles.size());
    for (std::size_t t = 0; t < triangles.size(); ++t)
    {
        const Vec3d& a = ioScratch.vertices[triangles[t][0]];
        const Vec3d normal =
            (ioScratch.vertices[triangles[t][1]] - a).cross(ioScratch.vertices[triangles[t][2]] - a);
        const double length = normal.norm();
        ioScratch.normals[t] = length > 0.0 ? Vec3d(normal / length) : Vec3d(Vec3d::Zero());
    }
    const UpdatedSphere sphere = inBody.state->ComputeSphereNow(inProxy);
    PatchView view;
    view.patches = &inPatches;
    view.proxy = inProxy;
    view.vertices = ioScratch.vertices;
    view.normals = ioScratch.normals;
    view.bound.center =
        inBody.pose.Apply(inBody.scale * Vec3d(sphere.center[0], sphere.center[1], sphere.center[2]));
    view.bound.radius = inBody.scale * double(sphere.radius) * (1.0 + 1e-9) + 1e-12;
    view.margin = inMargin;
    view.depthLimit = inDepthLimit;
    return view;
}

} // namespace bdt
