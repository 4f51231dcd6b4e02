#include "core/pieces/ContactPieces.h"

#include <bdt/core/asset/DeformableAsset.h>
#include <bdt/core/base/Error.h>

#include <algorithm>
#include <utility>

namespace bdt
{

std::shared_ptr<const DeformableAsset> DeformableAsset::Create(std::shared_ptr<const BDTree> inTree)
{
    if (!inTree)
        throw Error("deformable asset needs a tree");
    // The constructor is private, so no std::make_shared.
    std::shared_ptr<DeformableAsset> asset(new DeformableAsset());
    const Model& model = inTree->GetModel();
    asset->mMass = ComputeMassProperties(model); // throws for a model with no area
    asset->mModal = ComputeModalProperties(model, asset->mMass.centerOfMass);
    // The frame carries the rigid motion: the modes' coupling to it is their deformation only.
    RemoveRigidCoupling(asset->mModal, model, asset->mMass.centerOfMass);
    for (const Mat3d& moment : asset->mModal.firstMoment)
        asset->mFirstMomentAxial.emplace_back(moment(2, 1) - moment(1, 2), moment(0, 2) - moment(2, 0),
                                              moment(1, 0) - moment(0, 1));
    asset->mBoundingRadius = double(inTree->Row(0)[3]); // the root's rest radius (eq. 2)
    const std::span<const std::uint32_t> order = inTree->TriangleOrder();
    asset->mTreeTriangleOf.assign(order.size(), 0xffffffffu);
    for (std::uint32_t tree = 0; tree < order.size(); ++tree)
        if (order[tree] < order.size())
            asset->mTreeTriangleOf[order[tree]] = tree;
    asset->mProxies.resize(inTree->LevelCount());
    asset->mPatches.resize(inTree->LevelCount());
    asset->mPieces.resize(inTree->LevelCount());
    asset->mTree = std::move(inTree);
    return asset;
}

std::shared_ptr<const ContactProxies> DeformableAsset::Proxies(std::uint32_t inLevel) const
{
    const std::uint32_t level = std::min(inLevel, mTree->LevelCount() - 1);
    const std::lock_guard<std::mutex> lock(mMutex);
    std::shared_ptr<const ContactProxies>& proxies = mProxies[level];
    // Built under the lock: O(nodes above the level), once per level for the asset's lifetime.
    if (!proxies)
        proxies = std::make_shared<const ContactProxies>(mTree, level);
    return proxies;
}

std::shared_ptr<const ProxyPatches> DeformableAsset::Patches(std::uint32_t inLevel) const
{
    const std::uint32_t level = std::min(inLevel, mTree->LevelCount() - 1);
    std::shared_ptr<const ContactProxies> proxies = Proxies(level);
    const std::lock_guard<std::mutex> lock(mMutex);
    std::shared_ptr<const ProxyPatches>& patches = mPatches[level];
    if (!patches)
        patches = std::make_shared<const ProxyPatches>(std::move(proxies));
    return patches;
}

std::shared_ptr<const BDAabbTree> DeformableAsset::Boxes() const
{
    const std::lock_guard<std::mutex> lock(mMutex);
    if (!mBoxes)
        mBoxes = std::make_shared<const BDAabbTree>(BDAabbTree::Build(mTree));
    return mBoxes;
}

std::shared_ptr<const ContactPieces> DeformableAsset::Pieces(std::uint32_t inLevel) const
{
    const std::uint32_t level = std::min(inLevel, mTree->LevelCount() - 1);
    const bool closed = Patches(level)->Closed();
    std::shared_ptr<const BDAabbTree> boxes = Boxes();
    const std::lock_guard<std::mutex> lock(mMutex);
    std::shared_ptr<const ContactPieces>& pieces = mPieces[level];
    if (!pieces)
        pieces = std::make_shared<const ContactPieces>(std::move(boxes), mTree->LevelEnd(level + cPieceLevelsBelow),
                                                       level, closed);
    return pieces;
}

std::size_t DeformableAsset::MemoryBytes() const
{
    std::size_t bytes = mTree->MemoryBytes();
    const std::lock_guard<std::mutex> lock(mMutex);
    if (mBoxes)
        bytes += mBoxes->MemoryBytes();
    for (const std::shared_ptr<const ContactProxies>& proxies : mProxies)
        if (proxies)
            bytes += proxies->MemoryBytes();
    for (const std::shared_ptr<const ProxyPatches>& patches : mPatches)
        if (patches)
            bytes += patches->MemoryBytes();
    for (const std::shared_ptr<const ContactPieces>& pieces : mPieces)
        if (pieces)
            bytes += pieces->MemoryBytes();
    return bytes;
}

} // namespace bdt
