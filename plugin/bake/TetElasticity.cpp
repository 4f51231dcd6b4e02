// Linear elasticity on linear tetrahedra (constant strain), consistent mass.

#include <Eigen/Dense>
#include <bdt/bake/TetElasticity.h>
#include <bdt/core/base/Error.h>
#include <cmath>

namespace bdt
{

TetElasticity AssembleTetElasticity(const TetMesh& inMesh, const ElasticMaterial& inMaterial, double inScale)
{
    CheckElasticMaterial(inMaterial);
    CheckScale(inScale);
    const std::size_t nodes = inMesh.positions.size();
    std::vector<std::uint8_t> used(nodes, 0);
    for (const auto& tet : inMesh.tets)
        for (std::uint32_t n : tet)
        {
            if (n >= nodes)
                throw Error("tetrahedron node " + std::to_string(n) + " out of range");
            used[n] = 1;
        }
    for (std::size_t n = 0; n < nodes; ++n)
        if (used[n] == 0)
            throw Error("node " + std::to_string(n) + " belongs to no tetrahedron");

    const Eigen::Matrix<double, 6, 6> d = IsotropicElasticity(inMaterial.young, inMaterial.poisson);

    TetElasticity out;
    out.shortestEdge = std::numeric_limits<double>::infinity();
    std::vector<Eigen::Triplet<double>> stiffness, mass;
    stiffness.reserve(inMesh.tets.size() * 144);
    mass.reserve(inMesh.tets.size() * 48);
    for (std::size_t t = 0; t < inMesh.tets.size(); ++t)
    {
        const auto& tet = inMesh.tets[t];
        Vec3d x[4];
        for (int a = 0; a < 4; ++a)
            x[a] = inMesh.positions[tet[a]] * inScale;
        for (int a = 0; a < 4; ++a)
            for (int b = a + 1; b < 4; ++b)
                out.shortestEdge = std::min(out.shortestEdge, (x[a] - x[b]).norm());
        Mat3d edges;
        edges << x[1] - x[0], x[2] - x[0], x[3] - x[0];
        const double volume = std::abs(edges.determinant()) / 6.0;
        if (!(volume > 0.0) || !std::isfinite(volume))
            throw Error("tetrahedron " + std::to_string(t) + " is flat");
        // Barycentric gradients: N_a(x) = (edges⁻¹ (x − x0))_a for a = 1..3, so ∇N_a is row a of edges⁻¹.
        const Mat3d inverse = edges.inverse();
        Vec3d gradient[4];
        gradient[1] = inverse.row(0).transpose();
        gradient[2] = inverse.row(1).transpose();
        gradient[3] = inverse.row(2).transpose();
        gradient[0] = -(gradient[1] + gradient[2] + gradient[3]);
        Eigen::Matrix<double, 6, 12> strain = Eigen::Matrix<double, 6, 12>::Zero();
        for (int a = 0; a < 4; ++a)
            SetStrainColumns(a, gradient[a], strain);
        const Eigen::Matrix<double, 12, 12> ke = volume * strain.transpose() * d * strain;
        // Consistent mass of a linear tetrahedron: ρV/20 · (1 + δ_ab) per axis.
        const double m = inMaterial.density * volume / 20.0;
        for (int a = 0; a < 4; ++a)
            for (int b = 0; b < 4; ++b)
            {
                for (int r = 0; r < 3; ++r)
                {
                    for (int c = 0; c < 3; ++c)
                        stiffness.emplace_back(int(3 * tet[a]) + r, int(3 * tet[b]) + c,
                                               ke(3 * a + r, 3 * b + c));
                    mass.emplace_back(int(3 * tet[a]) + r, int(3 * tet[b]) + r, a == b ? 2.0 * m : m);
                }
            }
        out.totalMass += inMaterial.density * volume;
    }
    const auto dofs = Eigen::Index(3 * nodes);
    out.stiffness.resize(dofs, dofs);
    out.stiffness.setFromTriplets(stiffness.begin(), stiffness.end());
    out.mass.resize(dofs, dofs);
    out.mass.setFromTriplets(mass.begin(), mass.end());
    return out;
}

} // namespace bdt
