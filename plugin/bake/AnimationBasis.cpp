#include <bdt/bake/AnimationBasis.h>
#include <bdt/core/base/Error.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>

namespace bdt
{

// Compressed animation (Alexa & Müller 2000, "Representing Animations by Principal Components"): the frames
// x_f of a fixed-topology animation, stacked as the columns of a 3N×F matrix and centred by their mean p,
// X = [x_1 − p, ..., x_F − p], are approximated by their M leading principal components U, so that
// x_f ≈ p + U q_f: the reduced deformation model p' = p + U q of the BD-Tree paper (James & Pai 2004, §2,
// eq. 1), whose curtain example (§4) is such a compressed animation.
//
// Why the Gram matrix: N reaches 10^5 while F is at most a few thousand, so the eigenvectors v_k of the F×F
// matrix G = XᵀX (eigenvalues σ_k²) give the components u_k = X v_k / σ_k at O(N·F²) cost and O(F²) memory,
// where the 3N×3N covariance X Xᵀ or a thin SVD of X (3N×F doubles, 7 GB for N = 10^5, F = 3000) would not
// fit. X itself is never stored: it is rebuilt block by block of vertices from the frames.
//
// The price of G is squaring the condition number: λ_k = σ_k² is known only to about ε·λ_0, so √λ_k cannot
// tell σ_k < 1e-8·σ_0 from zero. The rank test therefore measures |X v_k| directly, after removing its
// projection on the components before it (Gram-Schmidt, which also restores their orthogonality to
// rounding level): for a v_k of the null space, X v_k is rounding error plus error of v_k along earlier
// eigenvectors, so the residual is at the ε·|X| level, and the 1e-9·σ_0 threshold is meaningful.

namespace
{

constexpr double cRankTolerance = 1e-9;         // A component with σ_k ≤ this · σ_0 counts as absent.
constexpr std::size_t cBlockEntries = 1u << 19; // Doubles in one vertex block of X (4 MB).

// Throws unless the frames form a valid animation: ≥ 2 frames, each with the same non-zero number of finite
// points.
void CheckFrames(std::span<const std::vector<Vec3f>> inFrames)
{
    if (inFrames.size() < 2)
        throw Error("animation basis: " + std::to_string(inFrames.size()) +
                    " frame(s) given, at least 2 are needed");
    const std::size_t n = inFrames[0].size();
    if (n == 0)
        throw Error("animation basis: the frames have no vertices");
    for (std::size_t f = 0; f < inFrames.size(); ++f)
    {
        if (inFrames[f].size() != n)
            throw Error("animation basis: frame " + std::to_string(f) + " has " +
                        std::to_string(inFrames[f].size()) + " vertices, frame 0 has " + std::to_string(n));
        for (std::size_t i = 0; i < n; ++i)
            if (!inFrames[f][i].allFinite())
                throw Error("animation basis: frame " + std::to_string(f) +
                            " has a non-finite coordinate (vertex " + std::to_string(i) + ")");
    }
}

std::string ModeCountText(std::uint32_t inModes)
{
    return std::to_string(inModes) + (inModes == 1 ? " mode" : " modes");
}

// Rows [3·inFirst, 3·(inFirst + inCount)) of the 3N×F matrix of the frames minus `inCentre`, in double.
void GatherBlock(std::span<const std::vector<Vec3f>> inFrames, const std::vector<Vec3d>& inCentre,
                 std::size_t inFirst, std::size_t inCount, Eigen::MatrixXd& outBlock)
{
    outBlock.resize(Eigen::Index(3 * inCount), Eigen::Index(inFrames.size()));
    for (std::size_t f = 0; f < inFrames.size(); ++f)
    {
        double* column = outBlock.col(Eigen::Index(f)).data();
        for (std::size_t i = 0; i < inCount; ++i)
            for (int k = 0; k < 3; ++k)
                column[3 * i + k] = double(inFrames[f][inFirst + i][k]) - inCentre[inFirst + i][k];
    }
}

// Calls inVisit(first, count, block) for consecutive vertex blocks of the centred frame matrix and reports
// progress from inFrom to inTo.
template <class Visit>
void ForEachBlock(std::span<const std::vector<Vec3f>> inFrames, const std::vector<Vec3d>& inCentre,
                  const ProgressCallback& inProgress, double inFrom, double inTo, const Visit& inVisit)
{
    const std::size_t n = inCentre.size();
    const std::size_t blockVertices = std::max<std::size_t>(1, cBlockEntries / (3 * inFrames.size()));
    Eigen::MatrixXd block;
    for (std::size_t first = 0; first < n; first += blockVertices)
    {
        const std::size_t count = std::min(blockVertices, n - first);
        GatherBlock(inFrames, inCentre, first, count, block);
        inVisit(first, count, block);
        if (inProgress)
            inProgress("pca", inFrom + (inTo - inFrom) * double(first + count) / double(n));
    }
}

// Makes the columns of ioY orthogonal (modified Gram-Schmidt, twice for accuracy) in column order, and
// returns the number of leading columns whose residual exceeds cRankTolerance times the first's norm.
std::uint32_t Orthogonalise(Eigen::MatrixXd& ioY)
{
    const double first = ioY.col(0).norm();
    for (Eigen::Index j = 0; j < ioY.cols(); ++j)
    {
        for (int repeat = 0; repeat < 2; ++repeat)
            for (Eigen::Index k = 0; k < j; ++k)
                ioY.col(j) -= ioY.col(k) * (ioY.col(k).dot(ioY.col(j)) / ioY.col(k).squaredNorm());
        if (!(first > 0.0) || !(ioY.col(j).norm() > cRankTolerance * first))
            return std::uint32_t(j);
    }
    return std::uint32_t(ioY.cols());
}

// Scales column j of inY to a largest vertex displacement of 1 with its largest-magnitude entry positive,
// and stores it in `ModelData::basis` layout.
std::vector<float> ScaleComponents(const Eigen::MatrixXd& inY, std::size_t inVertices, std::uint32_t inModes)
{
    std::vector<float> basis(3 * inVertices * inModes);
    for (std::uint32_t j = 0; j < inModes; ++j)
    {
        const auto column = inY.col(Eigen::Index(j));
        double largest = 0.0;
        for (std::size_t i = 0; i < inVertices; ++i)
            largest = std::max(largest, column.segment<3>(Eigen::Index(3 * i)).norm());
        Eigen::Index peak = 0; // The first entry of largest magnitude.
        for (Eigen::Index e = 1; e < column.size(); ++e)
            if (std::abs(column[e]) > std::abs(column[peak]))
                peak = e;
        const double scale = (column[peak] < 0.0 ? -1.0 : 1.0) / largest;
        for (std::size_t i = 0; i < inVertices; ++i)
            for (int k = 0; k < 3; ++k)
                basis[(i * inModes + j) * 3 + k] = float(column[Eigen::Index(3 * i + k)] * scale);
    }
    return basis;
}

// The mean frame, in double.
std::vector<Vec3d> MeanFrame(std::span<const std::vector<Vec3f>> inFrames)
{
    std::vector<Vec3d> mean(inFrames[0].size(), Vec3d::Zero());
    for (const std::vector<Vec3f>& frame : inFrames)
        for (std::size_t i = 0; i < mean.size(); ++i)
            mean[i] += frame[i].cast<double>();
    for (Vec3d& point : mean)
        point /= double(inFrames.size());
    return mean;
}

// Fills the singular values and energy of `ioOut` from the Gram matrix G = XᵀX of the frames centred by
// `inMean`, and returns the eigenvectors v_k of its M largest eigenvalues (F×M, descending). O(N·F² + F³).
Eigen::MatrixXd GramEigenvectors(std::span<const std::vector<Vec3f>> inFrames,
                                 const std::vector<Vec3d>& inMean, const ProgressCallback& inProgress,
                                 AnimationBasis& ioOut)
{
    const auto f = Eigen::Index(inFrames.size());
    Eigen::MatrixXd gram = Eigen::MatrixXd::Zero(f, f); // Lower triangle only.
    ForEachBlock(inFrames, inMean, inProgress, 0.0, 0.5,
                 [&](std::size_t, std::size_t, const Eigen::MatrixXd& inBlock)
                 { gram.selfadjointView<Eigen::Lower>().rankUpdate(inBlock.transpose()); });
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(gram); // Ascending eigenvalues.
    if (eigen.info() != Eigen::Success)
        throw Error("animation basis: the eigen-decomposition of the frames' Gram matrix did not converge");
    const std::size_t valueCount = std::min(inFrames.size(), 3 * inMean.size()); // rank(X) ≤ 3N.
    double total = 0.0, kept = 0.0;
    for (std::size_t k = 0; k < valueCount; ++k)
    {
        const double value = std::max(eigen.eigenvalues()[f - 1 - Eigen::Index(k)], 0.0);
        ioOut.singularValues.push_back(std::sqrt(value));
        total += value;
        kept += k < ioOut.modeCount ? value : 0.0;
    }
    ioOut.energyKept = total > 0.0 ? kept / total : 1.0;
    return eigen.eigenvectors().rightCols(Eigen::Index(ioOut.modeCount)).rowwise().reverse();
}

// The track: q_f is the least-squares fit of x_f − p with the stored (float) p and U, through the M×M
// normal equations (the float U is orthogonal only to rounding). O(N·M·F + N·M²).
std::vector<float> FitTrack(std::span<const std::vector<Vec3f>> inFrames, const AnimationBasis& inBasis,
                            const ProgressCallback& inProgress)
{
    const std::size_t n = inBasis.rest.size(), modes = inBasis.modeCount;
    const auto m = Eigen::Index(modes);
    std::vector<Vec3d> rest(n);
    for (std::size_t i = 0; i < n; ++i)
        rest[i] = inBasis.rest[i].cast<double>();
    Eigen::MatrixXd uBlock, normal = Eigen::MatrixXd::Zero(m, m),
                            rhs = Eigen::MatrixXd::Zero(m, Eigen::Index(inFrames.size()));
    ForEachBlock(inFrames, rest, inProgress, 0.75, 0.9,
                 [&](std::size_t inFirst, std::size_t inCount, const Eigen::MatrixXd& inBlock)
                 {
                     uBlock.resize(Eigen::Index(3 * inCount), m);
                     for (std::size_t i = 0; i < inCount; ++i)
                         for (std::size_t j = 0; j < modes; ++j)
                             for (std::size_t k = 0; k < 3; ++k)
                                 uBlock(Eigen::Index(3 * i + k), Eigen::Index(j)) =
                                     inBasis.basis[((inFirst + i) * modes + j) * 3 + k];
                     normal.selfadjointView<Eigen::Lower>().rankUpdate(uBlock.transpose());
                     rhs.noalias() += uBlock.transpose() * inBlock;
                 });
    const Eigen::MatrixXd q = normal.selfadjointView<Eigen::Lower>().llt().solve(rhs); // M×F.
    std::vector<float> track(inFrames.size() * modes);
    for (std::size_t f = 0; f < inFrames.size(); ++f)
        for (std::size_t j = 0; j < modes; ++j)
            track[f * modes + j] = float(q(Eigen::Index(j), Eigen::Index(f)));
    return track;
}

// Fills maxError and rmsError of `ioBasis`: the reconstruction as `Model::DeformedPosition` does it (float
// p, U, q; double sums) against the frames. O(N·M·F).
void MeasureErrors(std::span<const std::vector<Vec3f>> inFrames, const ProgressCallback& inProgress,
                   AnimationBasis& ioBasis)
{
    const std::size_t n = ioBasis.rest.size(), modes = ioBasis.modeCount;
    double sumSquares = 0.0;
    for (std::size_t f = 0; f < inFrames.size(); ++f)
    {
        const float* q = ioBasis.track.data() + f * modes;
        for (std::size_t i = 0; i < n; ++i)
        {
            Vec3d position = ioBasis.rest[i].cast<double>();
            const float* u = ioBasis.basis.data() + i * modes * 3;
            for (std::size_t j = 0; j < modes; ++j)
                position += double(q[j]) * Vec3d(u[3 * j], u[3 * j + 1], u[3 * j + 2]);
            const double error = (position - inFrames[f][i].cast<double>()).norm();
            ioBasis.maxError = std::max(ioBasis.maxError, error);
            sumSquares += error * error;
        }
        if (inProgress)
            inProgress("pca", 0.9 + 0.1 * double(f + 1) / double(inFrames.size()));
    }
    ioBasis.rmsError = std::sqrt(sumSquares / double(n * inFrames.size()));
}

} // namespace

AnimationBasis ComputeAnimationBasis(std::span<const std::vector<Vec3f>> inFrames, std::uint32_t inModes,
                                     const ProgressCallback& inProgress)
{
    CheckFrames(inFrames);
    if (inModes == 0)
        throw Error("animation basis: no modes requested (M = 0)");
    const std::size_t n = inFrames[0].size(), frames = inFrames.size();
    const std::size_t maxRank = std::min(frames - 1, 3 * n); // Centring removes one dimension.
    if (inModes > maxRank)
        throw Error("animation basis: animation has rank at most " + std::to_string(maxRank) + " (" +
                    std::to_string(frames) + " frames, " + std::to_string(n) + " vertices): cannot keep " +
                    ModeCountText(inModes));
    if (inProgress)
        inProgress("pca", 0.0);

    AnimationBasis out;
    out.modeCount = inModes;
    const std::vector<Vec3d> mean = MeanFrame(inFrames);
    out.rest.reserve(n);
    for (const Vec3d& point : mean)
        out.rest.push_back(point.cast<float>());
    const Eigen::MatrixXd leading = GramEigenvectors(inFrames, mean, inProgress, out);
    if (inProgress)
        inProgress("pca", 0.6);

    // The components X v_k, orthogonalised and checked for rank, then scaled.
    Eigen::MatrixXd components(Eigen::Index(3 * n), Eigen::Index(inModes));
    ForEachBlock(inFrames, mean, inProgress, 0.6, 0.75,
                 [&](std::size_t inFirst, std::size_t inCount, const Eigen::MatrixXd& inBlock)
                 {
                     components.middleRows(Eigen::Index(3 * inFirst), Eigen::Index(3 * inCount)).noalias() =
                         inBlock * leading;
                 });
    const std::uint32_t rank = Orthogonalise(components);
    if (rank < inModes)
        throw Error("animation basis: animation has rank " + std::to_string(rank) + " (" +
                    std::to_string(frames) + " frames" + (rank == 0 ? ", all equal" : "") +
                    "): cannot keep " + ModeCountText(inModes));
    out.basis = ScaleComponents(components, n, inModes);
    components.resize(0, 0);

    out.track = FitTrack(inFrames, out, inProgress);
    MeasureErrors(inFrames, inProgress, out);
    return out;
}

} // namespace bdt
