#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <algorithm>
#include <bdt/core/base/Error.h>
#include <bdt/samples/PileWaves.h>
#include <cmath>
#include <utility>

namespace bdt
{

PileWaves::PileWaves(std::shared_ptr<const DeformableAsset> inAsset, const PileWavesSettings& inSettings)
    : mAsset(std::move(inAsset)), mBody(inSettings.pile.body), mInterval(1.0)
{
    if (!mAsset)
        throw Error("pile waves: the asset is null");
    SetInterval(inSettings.interval);
    mTransforms = PileTransforms(*mAsset, inSettings.pile);
    // PileTransforms lays each layer out as a square grid of this side, layer over layer.
    const std::uint32_t perLayer = (inSettings.pile.count + inSettings.pile.layers - 1) / inSettings.pile.layers;
    mSide = std::max<std::uint32_t>(1, std::uint32_t(std::ceil(std::sqrt(double(perLayer)))));
    const std::size_t wave = std::size_t(mSide) * mSide;
    if (mTransforms.size() > wave)
        mLayerHeight = double(mTransforms[wave].getOrigin().y() - mTransforms[0].getOrigin().y());
    if (mTransforms.size() > 1)
        mCellWidth = std::abs(double(mTransforms[1].getOrigin().x() - mTransforms[0].getOrigin().x()));
}

void PileWaves::SetInterval(double inSeconds)
{
    if (!(inSeconds > 0.0) || !std::isfinite(inSeconds))
        throw Error("pile waves: the interval must be finite and > 0 seconds");
    mInterval = inSeconds;
}

std::vector<btRigidBody*> PileWaves::Spawn(SampleWorld& ioWorld, double inTime)
{
    std::vector<btRigidBody*> made;
    const std::size_t wave = std::size_t(mSide) * mSide;
    while (mSpawned < mTransforms.size() && inTime >= double(mNextWave) * mInterval)
    {
        // Layer k of the block falls from the first layer's height.
        const std::size_t end = std::min(mTransforms.size(), mSpawned + wave);
        for (; mSpawned < end; ++mSpawned)
        {
            btTransform transform = mTransforms[mSpawned];
            transform.getOrigin().setY(transform.getOrigin().y() - btScalar(double(mNextWave) * mLayerHeight));
            BodySettings body = mBody;
            body.transform = MeshFromPrincipal(*mAsset, body.scale, transform);
            made.push_back(ioWorld.Deformables().CreateBody(mAsset, body));
        }
        ++mNextWave;
    }
    return made;
}

} // namespace bdt
