#include "support/ErrorOf.h"

#include <bdt/bake/AnimationBasis.h>
#include <bdt/core/base/Error.h>
#include <bdt/core/model/Model.h>

#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace bdt
{
namespace
{

using Frames = std::vector<std::vector<Vec3f>>;

// An animation x_f = p + Σ_k c_fk d_k built from K known displacement fields (in double, then rounded to the
// float frames).
struct SyntheticAnimation
{
    Frames frames;
    std::vector<std::vector<Vec3d>> fields;        // d_k, K of them.
    std::vector<std::vector<double>> coefficients; // c_fk, F of them.
};

SyntheticAnimation MakeSyntheticAnimation(std::size_t inVertices, std::size_t inFrames, unsigned inSeed)
{
    std::mt19937 random(inSeed);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    const std::vector<double> amplitudes = {0.3, 0.1, 0.03}; // Distinct, so σ_0 > σ_1 > σ_2 clearly.
    SyntheticAnimation out;
    std::vector<Vec3d> rest(inVertices);
    for (Vec3d& p : rest)
        p = Vec3d(uniform(random), uniform(random), uniform(random));
    for (const double amplitude : amplitudes)
    {
        std::vector<Vec3d> field(inVertices);
        for (Vec3d& d : field)
            d = amplitude * Vec3d(uniform(random), uniform(random), uniform(random));
        out.fields.push_back(std::move(field));
    }
    for (std::size_t f = 0; f < inFrames; ++f)
    {
        std::vector<double> c(amplitudes.size());
        for (double& value : c)
            value = uniform(random);
        std::vector<Vec3f> frame(inVertices);
        for (std::size_t i = 0; i < inVertices; ++i)
        {
            Vec3d x = rest[i];
            for (std::size_t k = 0; k < c.size(); ++k)
                x += c[k] * out.fields[k][i];
            frame[i] = x.cast<float>();
        }
        out.frames.push_back(std::move(frame));
        out.coefficients.push_back(std::move(c));
    }
    return out;
}

// A 25×20 grid curtain hanging from its top edge, with three travelling waves of different sizes (two in z,
// one swaying in x), each a pair of components: six in all.
Frames MakeWavingCurtain(std::size_t inFrames)
{
    Frames frames;
    for (std::size_t f = 0; f < inFrames; ++f)
    {
        const double t = 2.0 * std::numbers::pi * double(f) / double(inFrames);
        std::vector<Vec3f> frame;
        for (int row = 0; row < 20; ++row)
            for (int column = 0; column < 25; ++column)
            {
                const double x = column / 24.0, y = row / 19.0, hang = 1.0 - y;
                const double z =
                    0.2 * hang * std::sin(3.0 * x - t) + 0.05 * hang * hang * std::sin(7.0 * x + 2.0 * t);
                const double sway = 0.1 * hang * hang * std::cos(3.0 * t + x);
                frame.push_back(Vec3d(x + sway, y, z).cast<float>());
            }
        frames.push_back(std::move(frame));
    }
    return frames;
}

Vec3d BasisVector(const AnimationBasis& inBasis, std::size_t inVertex, std::uint32_t inMode)
{
    const float* u = inBasis.basis.data() + (inVertex * inBasis.modeCount + inMode) * 3;
    return {u[0], u[1], u[2]};
}

// The mean frame and the squared Frobenius norm of the centred frames, in double.
std::pair<std::vector<Vec3d>, double> MeanAndCentredNorm(const Frames& inFrames)
{
    std::vector<Vec3d> mean(inFrames[0].size(), Vec3d::Zero());
    for (const std::vector<Vec3f>& frame : inFrames)
        for (std::size_t i = 0; i < frame.size(); ++i)
            mean[i] += frame[i].cast<double>();
    for (Vec3d& m : mean)
        m /= double(inFrames.size());
    double squares = 0.0;
    for (const std::vector<Vec3f>& frame : inFrames)
        for (std::size_t i = 0; i < frame.size(); ++i)
            squares += (frame[i].cast<double>() - mean[i]).squaredNorm();
    return {std::move(mean), squares};
}

double BoxDiagonal(const Frames& inFrames)
{
    Eigen::AlignedBox3d box;
    for (const std::vector<Vec3f>& frame : inFrames)
        for (const Vec3f& x : frame)
            box.extend(x.cast<double>());
    return box.diagonal().norm();
}

// The runtime model of the basis: a dummy triangle, since only the positions and U matter here.
Model MakeModel(const AnimationBasis& inBasis)
{
    ModelData data;
    data.positions = inBasis.rest;
    data.triangles = {{0, 1, 2}};
    data.modeCount = inBasis.modeCount;
    data.basis = inBasis.basis;
    return Model::Create(std::move(data));
}

using test::ErrorOf;

void ExpectErrorMentions(const std::string& inMessage, const std::string& inWhat)
{
    EXPECT_NE(inMessage.find(inWhat), std::string::npos) << "message: " << inMessage;
    EXPECT_EQ(inMessage.find('\n'), std::string::npos) << "message: " << inMessage;
}

TEST(AnimationBasisTest, ThreeKnownFieldsAreRecoveredExactly)
{
    const SyntheticAnimation animation = MakeSyntheticAnimation(500, 40, 1);
    const AnimationBasis basis = ComputeAnimationBasis(animation.frames, 3);
    ASSERT_EQ(basis.rest.size(), 500u);
    ASSERT_EQ(basis.basis.size(), 3u * 500 * 3);
    ASSERT_EQ(basis.track.size(), 40u * 3);
    EXPECT_LE(basis.maxError, 1e-4 * BoxDiagonal(animation.frames));
    EXPECT_LE(basis.rmsError, basis.maxError);
    EXPECT_NEAR(basis.energyKept, 1.0, 1e-9);
}

TEST(AnimationBasisTest, TruncationErrorIsTheDiscardedSingularValue)
{
    const SyntheticAnimation animation = MakeSyntheticAnimation(500, 40, 2);
    const AnimationBasis three = ComputeAnimationBasis(animation.frames, 3);
    const AnimationBasis two = ComputeAnimationBasis(animation.frames, 2);
    EXPECT_GT(two.maxError, 100.0 * three.maxError);
    // Exactly three components exist, so the Frobenius error of the rank-2 truncation is σ_2.
    const double sigma2 = two.singularValues[2];
    EXPECT_NEAR(two.rmsError * std::sqrt(500.0 * 40.0) / sigma2, 1.0, 0.02);
    const double total =
        std::pow(two.singularValues[0], 2) + std::pow(two.singularValues[1], 2) + sigma2 * sigma2;
    EXPECT_NEAR(two.energyKept, 1.0 - sigma2 * sigma2 / total, 1e-9);
    EXPECT_LT(two.energyKept, 1.0 - 1e-4);
}

TEST(AnimationBasisTest, SingularValuesMatchBruteForce)
{
    const SyntheticAnimation animation = MakeSyntheticAnimation(500, 40, 3);
    const AnimationBasis basis = ComputeAnimationBasis(animation.frames, 3);
    const std::vector<double>& sigma = basis.singularValues;
    ASSERT_EQ(sigma.size(), 40u);
    for (std::size_t k = 1; k < sigma.size(); ++k)
        EXPECT_LE(sigma[k], sigma[k - 1]) << k;
    // Σσ² is the squared Frobenius norm of the centred frames.
    double squares = 0.0;
    for (const double s : sigma)
        squares += s * s;
    EXPECT_NEAR(squares / MeanAndCentredNorm(animation.frames).second, 1.0, 1e-9);
    // The three non-zero σ_k are those of D·C (D the 3N×3 fields, C the 3×F centred coefficients): the square
    // roots of the eigenvalues of Lᵀ (C Cᵀ) L with DᵀD = L Lᵀ. The rest are float rounding.
    Mat3d dd = Mat3d::Zero(), cc = Mat3d::Zero();
    for (std::size_t i = 0; i < 500; ++i)
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b)
                dd(a, b) += animation.fields[a][i].dot(animation.fields[b][i]);
    Vec3d meanC = Vec3d::Zero();
    for (const std::vector<double>& c : animation.coefficients)
        meanC += Vec3d(c[0], c[1], c[2]) / 40.0;
    for (const std::vector<double>& c : animation.coefficients)
    {
        const Vec3d centred = Vec3d(c[0], c[1], c[2]) - meanC;
        cc += centred * centred.transpose();
    }
    const Mat3d l = Eigen::LLT<Mat3d>(dd).matrixL();
    Eigen::SelfAdjointEigenSolver<Mat3d> eigen(l.transpose() * cc * l);
    for (int k = 0; k < 3; ++k)
        EXPECT_NEAR(sigma[std::size_t(k)] / std::sqrt(eigen.eigenvalues()[2 - k]), 1.0, 1e-4) << k;
    EXPECT_LT(sigma[3], 1e-5 * sigma[0]);
}

TEST(AnimationBasisTest, ComponentsAreOrthogonalNormalisedAndSigned)
{
    const Frames frames = MakeWavingCurtain(60);
    const std::uint32_t modes = 6;
    const AnimationBasis basis = ComputeAnimationBasis(frames, modes);
    const std::size_t n = frames[0].size();
    for (std::uint32_t j = 0; j < modes; ++j)
    {
        double largest = 0.0, peak = 0.0;
        for (std::size_t i = 0; i < n; ++i)
        {
            const Vec3d u = BasisVector(basis, i, j);
            largest = std::max(largest, u.norm());
            for (int k = 0; k < 3; ++k)
                if (std::abs(u[k]) > std::abs(peak))
                    peak = u[k];
        }
        EXPECT_NEAR(largest, 1.0, 1e-6) << "mode " << j;
        EXPECT_GT(peak, 0.0) << "mode " << j;
        for (std::uint32_t k = 0; k < j; ++k)
        {
            double dot = 0.0, normJ = 0.0, normK = 0.0;
            for (std::size_t i = 0; i < n; ++i)
            {
                dot += BasisVector(basis, i, j).dot(BasisVector(basis, i, k));
                normJ += BasisVector(basis, i, j).squaredNorm();
                normK += BasisVector(basis, i, k).squaredNorm();
            }
            EXPECT_LE(std::abs(dot), 1e-5 * std::sqrt(normJ * normK)) << "modes " << j << ", " << k;
        }
    }
    // The rest shape is the mean frame.
    const std::vector<Vec3d> mean = MeanAndCentredNorm(frames).first;
    for (std::size_t i = 0; i < n; ++i)
        EXPECT_LE((basis.rest[i].cast<double>() - mean[i]).norm(), 1e-6) << i;
}

TEST(AnimationBasisTest, TrackReproducesFramesWithTheReportedError)
{
    const Frames frames = MakeWavingCurtain(50);
    const AnimationBasis basis = ComputeAnimationBasis(frames, 4);
    const Model model = MakeModel(basis);
    double largest = 0.0, squares = 0.0;
    for (std::size_t f = 0; f < frames.size(); ++f)
    {
        const std::span<const float> q(basis.track.data() + f * 4, 4);
        // The residual of a least-squares fit is orthogonal to every column of U.
        double residualDotU[4] = {}, uSquares[4] = {}, residualSquares = 0.0;
        for (std::size_t i = 0; i < frames[f].size(); ++i)
        {
            const Vec3d residual = model.DeformedPosition(i, q) - frames[f][i].cast<double>();
            largest = std::max(largest, residual.norm());
            squares += residual.squaredNorm();
            residualSquares += residual.squaredNorm();
            for (std::uint32_t j = 0; j < 4; ++j)
            {
                residualDotU[j] += residual.dot(BasisVector(basis, i, j));
                uSquares[j] += BasisVector(basis, i, j).squaredNorm();
            }
        }
        for (std::uint32_t j = 0; j < 4; ++j)
            EXPECT_LE(std::abs(residualDotU[j]), 1e-3 * std::sqrt(residualSquares * uSquares[j]))
                << "frame " << f << ", mode " << j;
    }
    EXPECT_NEAR(basis.maxError, largest, 1e-9 * largest);
    EXPECT_NEAR(basis.rmsError, std::sqrt(squares / double(frames.size() * frames[0].size())),
                1e-9 * largest);
    EXPECT_GT(basis.maxError, 0.0); // Four modes do not hold the whole curtain: the check is not vacuous.
}

TEST(AnimationBasisTest, BadInputsThrow)
{
    const Frames good = MakeSyntheticAnimation(50, 40, 4).frames;
    ExpectErrorMentions(ErrorOf([&] { ComputeAnimationBasis(std::span(good).first(1), 1); }), "at least 2");
    Frames mismatched = good;
    mismatched[7].pop_back();
    ExpectErrorMentions(ErrorOf([&] { ComputeAnimationBasis(mismatched, 2); }), "frame 7 has 49 vertices");
    Frames nan = good;
    nan[5][3].y() = std::numeric_limits<float>::quiet_NaN();
    ExpectErrorMentions(ErrorOf([&] { ComputeAnimationBasis(nan, 2); }), "frame 5 has a non-finite");
    const Frames empty(3);
    ExpectErrorMentions(ErrorOf([&] { ComputeAnimationBasis(empty, 1); }), "no vertices");
    ExpectErrorMentions(ErrorOf([&] { ComputeAnimationBasis(good, 0); }), "M = 0");
    ExpectErrorMentions(ErrorOf([&] { ComputeAnimationBasis(good, 40); }), "rank at most 39 (40 frames");
    EXPECT_EQ(ErrorOf([&] { ComputeAnimationBasis(good, 39); }), ""); // Float rounding gives full rank.
    const Frames still(10, good[0]);
    ExpectErrorMentions(ErrorOf([&] { ComputeAnimationBasis(still, 1); }), "rank 0 (10 frames, all equal)");
    EXPECT_THROW(ComputeAnimationBasis(still, 1), Error);
}

TEST(AnimationBasisTest, TwoKeyShapesHaveRankOne)
{
    // Alternating between two shapes is exactly rank 1 after centring; the Gram matrix alone would report a
    // second singular value near 1e-8·σ_0 from rounding.
    const Frames keys = MakeSyntheticAnimation(200, 2, 5).frames;
    Frames frames;
    for (int f = 0; f < 30; ++f)
        frames.push_back(keys[std::size_t(f % 2)]);
    ExpectErrorMentions(ErrorOf([&] { ComputeAnimationBasis(frames, 2); }),
                        "rank 1 (30 frames): cannot keep 2 modes");
    const AnimationBasis basis = ComputeAnimationBasis(frames, 1);
    EXPECT_LE(basis.maxError, 1e-6 * BoxDiagonal(frames));
    EXPECT_NEAR(basis.energyKept, 1.0, 1e-12);
}

TEST(AnimationBasisTest, DeterministicAndReportsProgress)
{
    const Frames frames = MakeWavingCurtain(30);
    std::vector<double> fractions;
    const AnimationBasis a = ComputeAnimationBasis(frames, 5,
                                                   [&](const char* inStage, double inFraction)
                                                   {
                                                       EXPECT_STREQ(inStage, "pca");
                                                       fractions.push_back(inFraction);
                                                   });
    const AnimationBasis b = ComputeAnimationBasis(frames, 5);
    EXPECT_EQ(a.rest, b.rest);
    EXPECT_EQ(a.basis, b.basis);
    EXPECT_EQ(a.track, b.track);
    EXPECT_EQ(a.singularValues, b.singularValues);
    EXPECT_EQ(a.maxError, b.maxError);
    EXPECT_EQ(a.rmsError, b.rmsError);
    EXPECT_EQ(a.energyKept, b.energyKept);
    ASSERT_FALSE(fractions.empty());
    EXPECT_EQ(fractions.front(), 0.0);
    EXPECT_EQ(fractions.back(), 1.0);
    EXPECT_TRUE(std::is_sorted(fractions.begin(), fractions.end()));
}

} // namespace
} // namespace bdt
