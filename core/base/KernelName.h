#pragma once
// Short kernel names for tables: the full name a profiler records ("void at::native::
// vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, …>(int, …)") is hundreds of
// characters; a table shows "at::native::vectorized_elementwise_kernel<4, CUDAFunctor_add, Array>"
// and keeps the full name for the details and the tooltip. Pure functions, no tables of known names.

#include <string>
#include <string_view>

namespace chokepoint::core {

// Whether Itanium-mangled names ("_Z…") can be demangled on this platform (the C++ runtime's
// abi::__cxa_demangle; absent with MSVC's runtime).
bool kernelDemanglerAvailable();

// `name` demangled when it is an Itanium-mangled symbol ("_Z…") the runtime can demangle; else
// `name` unchanged.
std::string demangleKernelName(std::string_view name);

// The name shortened for display:
//  - demangled (see above);
//  - a C++ signature loses its parameter list and return type ("void ns::k<…>(int, float*)" ->
//    "ns::k<…>"); a parenthesised part that is not a parameter list (a space before it, as in
//    "Memcpy HtoD (Pageable -> Device)") is kept;
//  - template arguments are folded: each to its name, without namespace and without its own
//    arguments ("vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>,
//    at::detail::Array<char*, 3> >" -> "vectorized_elementwise_kernel<4, CUDAFunctor_add, Array>";
//    a lambda to the function it is in), so the instances of one generic kernel stay apart; the
//    whole list to "<…>" when that is still long; a single plain name is kept whole (it is the
//    kernel's identity: "cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x4_nt_align1>");
//  - a name cut short inside brackets (some tools truncate) is folded the same way.
// Names without templates or parameters ("volta_sgemm_128x64_nn") come back unchanged.
std::string shortKernelName(std::string_view name);

}  // namespace chokepoint::core
