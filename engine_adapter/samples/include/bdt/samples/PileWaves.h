#pragma once

#include <bdt/samples/Scenes.h>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace bdt
{

/// The sandbox's chairs scene (`bdt-demo --scene chairs`): `AddPile`'s block dropped in waves, one layer of its
/// grid at a time, each from the first layer's height, so bodies keep landing on the pile while it settles.
/// Shared by the demo, the tests and the fuzz targets.
struct PileWavesSettings
{
    PileSettings pile;      ///< The block; each of its layers is a wave.
    double interval = 0.45; ///< Seconds between waves; > 0.
};

/// Spawns a `PileWavesSettings` block wave by wave as the simulated time passes. Holds no body: the world owns
/// them.
class PileWaves
{
public:
    /// Throws `bdt::Error` on a null asset, an interval not finite and > 0, or what `PileTransforms` refuses.
    PileWaves(std::shared_ptr<const DeformableAsset> inAsset, const PileWavesSettings& inSettings);

    /// Adds to `ioWorld` the waves due by simulated time `inTime` (s; wave k is due at k·interval, the first at 0)
    /// and returns the bodies made now, in creation order. Call before each step.
    std::vector<btRigidBody*> Spawn(SampleWorld& ioWorld, double inTime);

    /// Seconds between waves from now on; > 0, else `bdt::Error`.
    void SetInterval(double inSeconds);

    std::size_t Spawned() const { return mSpawned; }                   ///< Bodies made so far.
    std::size_t Count() const { return mTransforms.size(); }           ///< Bodies in all waves.
    std::uint32_t Side() const { return mSide; }                       ///< Bodies along a side of a wave's grid.
    double CellWidth() const { return mCellWidth; }                    ///< Metres between neighbours' centres.

private:
    std::shared_ptr<const DeformableAsset> mAsset;
    BodySettings mBody;
    double mInterval;
    std::vector<btTransform> mTransforms; // the block, as `PileTransforms` stacks it
    std::uint32_t mSide = 1;
    double mLayerHeight = 0.0, mCellWidth = 1.0;
    std::size_t mSpawned = 0;
    std::uint32_t mNextWave = 0;
};

} // namespace bdt
