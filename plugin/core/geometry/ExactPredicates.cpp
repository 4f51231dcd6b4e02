#include "ExactPredicates.h"

#include <array>
#include <cmath>
#include <cstddef>

namespace bdt
{

namespace
{

// Filter bounds: a few times Shewchuk's error bounds for these determinants ((7 + 56ε)ε and (3 + 16ε)ε
// times the permanent, ε = 2⁻⁵³), so that the filter stays safe when the compiler contracts a multiply-add.
constexpr double cOrient3DFilter = 1e-14;
constexpr double cOrient2DFilter = 1e-14;

// An exact sum of doubles, kept as a non-overlapping expansion in increasing magnitude (Shewchuk 1997):
// every `Add` is exact (Grow-Expansion with zero elimination), and the sign of the sum is the sign of the
// largest component. Capacity is enough for the 96 terms of `Orient3D`.
class Expansion
{
public:
    void Add(double inValue)
    {
        if (inValue == 0.0)
            return;
        double q = inValue;
        std::size_t out = 0;
        for (std::size_t i = 0; i < mCount; ++i)
        {
            // Knuth's two-sum: s + e == q + mTerms[i] exactly.
            const double s = q + mTerms[i];
            const double bv = s - q;
            const double e = (q - (s - bv)) + (mTerms[i] - bv);
            q = s;
            if (e != 0.0)
                mTerms[out++] = e;
        }
        if (q != 0.0)
            mTerms[out++] = q;
        mCount = out;
    }

    /// Adds the exact product inA·inB·inC (four doubles) with sign inSign.
    void AddProduct(double inA, double inB, double inC, double inSign)
    {
        const double p = inA * inB;
        const double pe = std::fma(inA, inB, -p); // p + pe == inA·inB exactly
        const double r0 = p * inC;
        const double r0e = std::fma(p, inC, -r0);
        const double r1 = pe * inC;
        const double r1e = std::fma(pe, inC, -r1);
        Add(inSign * r0e);
        Add(inSign * r1e);
        Add(inSign * r1);
        Add(inSign * r0);
    }

    int Sign() const
    {
        if (mCount == 0)
            return 0;
        return mTerms[mCount - 1] > 0.0 ? 1 : -1;
    }

private:
    std::array<double, 128> mTerms{};
    std::size_t mCount = 0;
};

int SignOf(double inValue)
{
    return inValue > 0.0 ? 1 : (inValue < 0.0 ? -1 : 0);
}

// Adds sign · det[u; v; w] of three raw points (rows) to the expansion: 6 exact triple products.
void AddDet3(Expansion& ioSum, const Vec3d& inU, const Vec3d& inV, const Vec3d& inW, double inSign)
{
    ioSum.AddProduct(inU.x(), inV.y(), inW.z(), inSign);
    ioSum.AddProduct(inU.x(), inV.z(), inW.y(), -inSign);
    ioSum.AddProduct(inU.y(), inV.z(), inW.x(), inSign);
    ioSum.AddProduct(inU.y(), inV.x(), inW.z(), -inSign);
    ioSum.AddProduct(inU.z(), inV.x(), inW.y(), inSign);
    ioSum.AddProduct(inU.z(), inV.y(), inW.x(), -inSign);
}

int Orient3DExact(const Vec3d& inA, const Vec3d& inB, const Vec3d& inC, const Vec3d& inD)
{
    // det[b − a, c − a, d − a] = −det[[a 1]; [b 1]; [c 1]; [d 1]], expanded along the column of ones so that
    // only products of the raw coordinates appear (no rounded differences).
    Expansion sum;
    AddDet3(sum, inB, inC, inD, 1.0);
    AddDet3(sum, inA, inC, inD, -1.0);
    AddDet3(sum, inA, inB, inD, 1.0);
    AddDet3(sum, inA, inB, inC, -1.0);
    return sum.Sign();
}

int Orient2DExact(const Vec2d& inA, const Vec2d& inB, const Vec2d& inC)
{
    // (b − a) × (c − a) = bx·cy − bx·ay − ax·cy − by·cx + by·ax + ay·cx.
    Expansion sum;
    sum.AddProduct(inB.x(), inC.y(), 1.0, 1.0);
    sum.AddProduct(inB.x(), inA.y(), 1.0, -1.0);
    sum.AddProduct(inA.x(), inC.y(), 1.0, -1.0);
    sum.AddProduct(inB.y(), inC.x(), 1.0, -1.0);
    sum.AddProduct(inB.y(), inA.x(), 1.0, 1.0);
    sum.AddProduct(inA.y(), inC.x(), 1.0, 1.0);
    return sum.Sign();
}

} // namespace

int Orient3D(const Vec3d& inA, const Vec3d& inB, const Vec3d& inC, const Vec3d& inD)
{
    const Vec3d u = inB - inA;
    const Vec3d v = inC - inA;
    const Vec3d w = inD - inA;
    const double m0 = v.y() * w.z() - v.z() * w.y();
    const double m1 = v.z() * w.x() - v.x() * w.z();
    const double m2 = v.x() * w.y() - v.y() * w.x();
    const double det = u.x() * m0 + u.y() * m1 + u.z() * m2;
    const double permanent = std::abs(u.x()) * (std::abs(v.y() * w.z()) + std::abs(v.z() * w.y())) +
                             std::abs(u.y()) * (std::abs(v.z() * w.x()) + std::abs(v.x() * w.z())) +
                             std::abs(u.z()) * (std::abs(v.x() * w.y()) + std::abs(v.y() * w.x()));
    if (std::abs(det) > cOrient3DFilter * permanent)
        return SignOf(det);
    return Orient3DExact(inA, inB, inC, inD);
}

int Orient2D(const Vec2d& inA, const Vec2d& inB, const Vec2d& inC)
{
    const double l = (inB.x() - inA.x()) * (inC.y() - inA.y());
    const double r = (inB.y() - inA.y()) * (inC.x() - inA.x());
    const double det = l - r;
    if (std::abs(det) > cOrient2DFilter * (std::abs(l) + std::abs(r)))
        return SignOf(det);
    return Orient2DExact(inA, inB, inC);
}

} // namespace bdt
