// Free vibration modes of a discretised solid: K φ = λ M φ by shift-and-invert Lanczos (Spectra) on a
// sparse Cholesky factorisation (CHOLMOD through Eigen), rigid modes checked and skipped.

#include <Eigen/CholmodSupport>
#include <Spectra/MatOp/SparseSymMatProd.h>
#include <Spectra/SymGEigsShiftSolver.h>
#include <algorithm>
#include <bdt/bake/VibrationModes.h>
#include <bdt/core/base/Error.h>
#include <cmath>
#include <numeric>
#include <string>

namespace bdt
{

namespace
{

/// y = (K − σM)⁻¹ x for Spectra's shift-and-invert mode, by CHOLMOD's sparse Cholesky (LLᵀ) factorisation,
/// supernodal or simplicial (`EFactorisation`). With σ below the smallest eigenvalue (0, the rigid modes) K − σM
/// is positive definite.
class ShiftedSolve
{
public:
    using Scalar = double;

    ShiftedSolve(const Eigen::SparseMatrix<double>& inK, const Eigen::SparseMatrix<double>& inM,
                 const ProgressCallback& inProgress, EFactorisation inFactorisation)
        : mK(inK), mM(inM), mProgress(inProgress)
    {
        mSolver.setMode(inFactorisation == EFactorisation::Fast ? Eigen::CholmodSupernodalLLt
                                                                 : Eigen::CholmodSimplicialLLt);
    }

    Eigen::Index rows() const { return mK.rows(); }
    Eigen::Index cols() const { return mK.cols(); }

    void set_shift(double inSigma)
    {
        if (mProgress)
            mProgress("factorise", 0.0);
        const Eigen::SparseMatrix<double> shifted = mK - inSigma * mM;
        mSolver.compute(shifted);
        if (mSolver.info() != Eigen::Success)
            throw Error("the factorisation of K - sigma M failed (the model is not positive definite)");
        if (mProgress)
            mProgress("factorise", 1.0);
    }

    void perform_op(const double* inX, double* outY) const
    {
        Eigen::Map<const Eigen::VectorXd> x(inX, mK.rows());
        Eigen::Map<Eigen::VectorXd> y(outY, mK.rows());
        y = mSolver.solve(x);
    }

private:
    const Eigen::SparseMatrix<double>& mK;
    const Eigen::SparseMatrix<double>& mM;
    const ProgressCallback& mProgress;
    Eigen::CholmodDecomposition<Eigen::SparseMatrix<double>, Eigen::Lower> mSolver;
};

// Modified Gram–Schmidt in the M inner product: Φᵀ M Φ = I to rounding, whatever the eigensolver's
// tolerance left between modes of (nearly) repeated frequencies.
void MassOrthonormalise(const Eigen::SparseMatrix<double>& inMass, Eigen::MatrixXd& ioShapes)
{
    for (Eigen::Index j = 0; j < ioShapes.cols(); ++j)
        for (int pass = 0; pass < 2; ++pass)
        {
            const Eigen::VectorXd mv = inMass * ioShapes.col(j);
            for (Eigen::Index i = 0; i < j; ++i)
                ioShapes.col(j) -= ioShapes.col(i).dot(mv) * ioShapes.col(i);
            const double norm = std::sqrt(ioShapes.col(j).dot(inMass * ioShapes.col(j)));
            if (!(norm > 0.0))
                throw Error("a vibration mode vanished in the mass orthonormalisation");
            ioShapes.col(j) /= norm;
        }
}

} // namespace

void CheckModeCount(std::uint32_t inModes, std::size_t inDofs, const std::string& inWhat,
                    const std::string& inHint)
{
    if (std::size_t(inModes) + 6 >= inDofs)
        throw Error(std::to_string(inModes) + " modes is more than the " +
                    std::to_string(inDofs > 7 ? inDofs - 7 : 0) + " vibration modes of " + inWhat + inHint);
}

VibrationModes SolveVibrationModes(const Eigen::SparseMatrix<double>& inStiffness,
                                   const Eigen::SparseMatrix<double>& inMass, std::uint32_t inModes,
                                   const ElasticMaterial& inMaterial, double inBodyLength,
                                   double inElementLength, const char* inWhat,
                                   const ProgressCallback& inProgress, EFactorisation inFactorisation)
{
    const Eigen::Index dofs = inStiffness.rows();
    const Eigen::Index wanted = Eigen::Index(inModes) + 6;
    if (inStiffness.cols() != dofs || inMass.rows() != dofs || inMass.cols() != dofs)
        throw Error(std::string(inWhat) + " has stiffness and mass matrices of different sizes");
    CheckModeCount(inModes, std::size_t(dofs), inWhat);
    const double speedSquared = inMaterial.young / inMaterial.density;
    const double shift = -1e-3 * speedSquared / (inBodyLength * inBodyLength);
    const double rigidBound = 1e-10 * speedSquared / (inElementLength * inElementLength);
    const Eigen::Index basisSize =
        std::min<Eigen::Index>(dofs, std::max<Eigen::Index>(2 * wanted + 1, wanted + 20));

    ShiftedSolve op(inStiffness, inMass, inProgress, inFactorisation);
    Spectra::SparseSymMatProd<double> massProduct(inMass);
    Spectra::SymGEigsShiftSolver<ShiftedSolve, Spectra::SparseSymMatProd<double>,
                                 Spectra::GEigsMode::ShiftInvert>
        solver(op, massProduct, wanted, basisSize, shift);
    if (inProgress)
        inProgress("eigensolve", 0.0);
    solver.init();
    solver.compute(Spectra::SortRule::LargestMagn, 2000, 1e-10);
    if (solver.info() != Spectra::CompInfo::Successful)
        throw Error("the eigensolver did not converge (" + std::to_string(dofs) + " degrees of freedom, " +
                    std::to_string(wanted) + " modes asked)");
    if (inProgress)
        inProgress("eigensolve", 1.0);

    const Eigen::VectorXd values = solver.eigenvalues();
    const Eigen::MatrixXd vectors = solver.eigenvectors();
    std::vector<Eigen::Index> order(std::size_t(values.size()));
    std::iota(order.begin(), order.end(), Eigen::Index(0));
    std::sort(order.begin(), order.end(),
              [&](Eigen::Index inA, Eigen::Index inB) { return values[inA] < values[inB]; });

    std::size_t rigid = 0;
    while (rigid < order.size() && std::abs(values[order[rigid]]) <= rigidBound)
        ++rigid;
    if (rigid != 6)
        throw Error("found " + std::to_string(rigid) + " near-zero (rigid) modes instead of 6: " + inWhat +
                    " is not one free solid");
    VibrationModes out;
    for (std::size_t i = 0; i < 6; ++i)
        out.rigidEigenvalues.push_back(values[order[i]]);
    out.shapes.resize(dofs, Eigen::Index(inModes));
    for (std::uint32_t j = 0; j < inModes; ++j)
    {
        out.eigenvalues.push_back(values[order[6 + j]]);
        out.shapes.col(j) = vectors.col(order[6 + j]);
    }
    MassOrthonormalise(inMass, out.shapes);
    // A deterministic sign: each mode's largest component positive.
    for (Eigen::Index j = 0; j < out.shapes.cols(); ++j)
    {
        Eigen::Index largest = 0;
        out.shapes.col(j).cwiseAbs().maxCoeff(&largest);
        if (out.shapes(largest, j) < 0.0)
            out.shapes.col(j) = -out.shapes.col(j);
    }
    return out;
}

std::vector<double> LumpedNodeMass(const Eigen::SparseMatrix<double>& inMass)
{
    std::vector<double> mass(std::size_t(inMass.rows() / 3), 0.0);
    for (Eigen::Index column = 0; column < inMass.outerSize(); ++column)
        for (Eigen::SparseMatrix<double>::InnerIterator it(inMass, column); it; ++it)
            if (it.row() % 3 == 0)
                mass[std::size_t(it.row() / 3)] += it.value();
    return mass;
}

std::vector<ModeInfo> MakeModeInfos(std::span<const double> inEigenvalues, double inAlpha, double inBeta)
{
    std::vector<ModeInfo> infos;
    for (double lambda : inEigenvalues)
    {
        const double omega = std::sqrt(std::max(lambda, 0.0));
        ModeInfo info;
        info.frequency = float(omega);
        info.damping = float((omega > 0.0 ? inAlpha / (2.0 * omega) : 0.0) + 0.5 * inBeta * omega);
        infos.push_back(info);
    }
    return infos;
}

} // namespace bdt
