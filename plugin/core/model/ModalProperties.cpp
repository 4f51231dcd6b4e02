// Per-mode integrals of the displacement basis under a lumped (area-weighted) mass, and the generalised
// inertial force of an accelerating, rotating frame on the modes.

#include <bdt/core/base/Error.h>
#include <bdt/core/model/ModalProperties.h>

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <string>

namespace bdt
{

namespace
{

// w_i: one third of the area of each triangle around vertex i over the total area; uniform 1/N for a model
// with no area. Degenerate triangles have no area and so give nothing. O(T + N).
std::vector<double> LumpedMassFractions(const Model& inModel)
{
    const std::span<const Vec3f> positions = inModel.Positions();
    std::vector<double> weights(positions.size(), 0.0);
    double total = 0.0;
    for (const Triangle& t : inModel.Triangles())
    {
        const Vec3d a = positions[t[0]].cast<double>();
        const Vec3d b = positions[t[1]].cast<double>();
        const Vec3d c = positions[t[2]].cast<double>();
        const double area = 0.5 * (b - a).cross(c - a).norm();
        for (std::uint32_t v : t)
            weights[v] += area / 3.0;
        total += area;
    }
    if (total > 0.0)
    {
        for (double& w : weights)
            w /= total;
    }
    else
    {
        std::fill(weights.begin(), weights.end(), 1.0 / double(weights.size()));
    }
    return weights;
}

// [v]×, the matrix of the cross product v × ·.
Mat3d Cross(const Vec3d& inV)
{
    Mat3d m;
    m << 0.0, -inV.z(), inV.y(), inV.z(), 0.0, -inV.x(), -inV.y(), inV.x(), 0.0;
    return m;
}

} // namespace

ModalProperties ComputeModalProperties(const Model& inModel, const Vec3d& inCenterOfMass)
{
    const std::uint32_t m = inModel.ModeCount();
    const std::vector<double> weights = LumpedMassFractions(inModel);
    const std::span<const Vec3f> positions = inModel.Positions();
    const std::span<const float> basis = inModel.Basis();

    ModalProperties properties;
    properties.modalMass.assign(m, 0.0);
    properties.meanDisplacement.assign(m, Vec3d::Zero());
    properties.firstMoment.assign(m, Mat3d::Zero());
    properties.maxDisplacement.assign(m, 0.0);
    std::vector<double> maxSquared(m, 0.0);
    // Vertex-major, as the basis is stored: one vertex's M vectors are contiguous.
    for (std::size_t i = 0; i < positions.size(); ++i)
    {
        const double w = weights[i];
        const Vec3d r = positions[i].cast<double>() - inCenterOfMass;
        const float* u = basis.data() + i * m * 3;
        for (std::uint32_t j = 0; j < m; ++j)
        {
            const Vec3d uij(u[3 * j], u[3 * j + 1], u[3 * j + 2]);
            const double squared = uij.squaredNorm();
            properties.modalMass[j] += w * squared;
            properties.meanDisplacement[j] += w * uij;
            properties.firstMoment[j] += (w * uij) * r.transpose();
            maxSquared[j] = std::max(maxSquared[j], squared);
        }
    }
    for (std::uint32_t j = 0; j < m; ++j)
        properties.maxDisplacement[j] = std::sqrt(maxSquared[j]);
    return properties;
}

void RemoveRigidCoupling(ModalProperties& ioProperties, const Model& inModel, const Vec3d& inCenterOfMass)
{
    const std::uint32_t m = inModel.ModeCount();
    if (ioProperties.meanDisplacement.size() != m || ioProperties.firstMoment.size() != m)
        throw Error("modal properties: " + std::to_string(ioProperties.meanDisplacement.size()) +
                    " modes for a model of " + std::to_string(m));
    // The lumped mass's centroid r̄ = Σ w r and second moment S = Σ w r rᵀ about the mass centre.
    const std::vector<double> weights = LumpedMassFractions(inModel);
    const std::span<const Vec3f> positions = inModel.Positions();
    Vec3d centroid = Vec3d::Zero();
    Mat3d second = Mat3d::Zero();
    for (std::size_t i = 0; i < positions.size(); ++i)
    {
        const Vec3d r = positions[i].cast<double>() - inCenterOfMass;
        centroid += weights[i] * r;
        second += (weights[i] * r) * r.transpose();
    }
    // The nearest rigid motion (t, ω) makes Σ w (U − t − ω × r) = 0 and Σ w r × (U − t − ω × r) = 0:
    // t = s − ω × r̄ and J ω = L − r̄ × s, with L = Σ w r × U (the axial vector of A's antisymmetric part) and
    // J = tr(S')·I − S' the inertia (per unit mass) about the centroid, S' = S − r̄ r̄ᵀ.
    const Mat3d centred = second - centroid * centroid.transpose();
    const Mat3d inertia = centred.trace() * Mat3d::Identity() - centred;
    const Eigen::FullPivLU<Mat3d> solver(inertia);
    for (std::uint32_t j = 0; j < m; ++j)
    {
        const Vec3d s = ioProperties.meanDisplacement[j];
        const Mat3d& a = ioProperties.firstMoment[j];
        const Vec3d moment(a(2, 1) - a(1, 2), a(0, 2) - a(2, 0), a(1, 0) - a(0, 1));
        const Vec3d omega = solver.isInvertible() ? Vec3d(solver.solve(moment - centroid.cross(s))) : Vec3d::Zero();
        const Vec3d t = s - omega.cross(centroid);
        // Σ w (U − t − ω × r) rᵀ = A − t r̄ᵀ − [ω]× S.
        ioProperties.firstMoment[j] = a - t * centroid.transpose() - Cross(omega) * second;
        ioProperties.meanDisplacement[j] = Vec3d::Zero(); // s − t − ω × r̄
    }
}

void InertialForce(const ModalProperties& inProperties, double inMass, double inScale,
                   const Mat3d& inRotation, const Vec3d& inLinearAcceleration, const Vec3d& inGravity,
                   const Vec3d& inAngularVelocity, const Vec3d& inAngularAcceleration,
                   std::span<double> outForce)
{
    const std::size_t m = inProperties.modalMass.size();
    if (outForce.size() != m || inProperties.meanDisplacement.size() != m ||
        inProperties.firstMoment.size() != m)
        throw Error("InertialForce: " + std::to_string(outForce.size()) + " outputs for " +
                    std::to_string(m) + " modes, or inconsistent modal properties");
    // Body axes: the apparent acceleration of the rest point r is Rᵀ(g − a) − s·B·r, B = [α_b]× + [ω_b]×².
    const Vec3d apparent = inRotation.transpose() * (inGravity - inLinearAcceleration);
    const Mat3d omega = Cross(inRotation.transpose() * inAngularVelocity);
    const Mat3d b = Cross(inRotation.transpose() * inAngularAcceleration) + omega * omega;
    const double ms = inMass * inScale;
    for (std::size_t j = 0; j < m; ++j)
    {
        const double coupling = b.cwiseProduct(inProperties.firstMoment[j]).sum(); // ⟨B, A_j⟩_F
        outForce[j] = ms * (inProperties.meanDisplacement[j].dot(apparent) - inScale * coupling);
    }
}

} // namespace bdt
