// Box blur on CUDA (box_blur.h): the workspace and the dispatch of each pass's kernels
// as the policy says (box_blur_policy.h). The kernels live in blur_column.cu (vertical
// window sums), blur_row.cu (horizontal sums of those, divided) and blur_fused.cu (both
// axes in one kernel). Every kernel but the wide sliding pass's (runPolicy says why) is
// launched with programmatic dependent launch on sm_90: scheduled while the previous drains.
#include "gpu/cuda/cuda_check.h"
#include "gpu/cuda/launch.cuh"
#include "gpu/filters/blur/blur_passes.h"
#include "gpu/filters/blur/box_blur.h"
#include "gpu/filters/blur/box_blur_math.h"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace vp {

struct BoxBlurWorkspaceAccess {
  // The buffers, allocated for the largest frame at their first use.
  static ImageView<ushort4> sums(BoxBlurWorkspace& ws, int width, int height) {
    if (!ws.sums_.get())
      ws.sums_ = DevicePitchedBuffer(size_t(ws.maxWidth_) * sizeof(ushort4), size_t(ws.maxHeight_));
    return {static_cast<ushort4*>(ws.sums_.get()), ws.sums_.pitch(), width, height};
  }
  static RgbaView pingPong(BoxBlurWorkspace& ws, int width, int height) {
    if (ws.pingPong_.width() == 0) ws.pingPong_ = DeviceImage(ws.maxWidth_, ws.maxHeight_);
    return {ws.pingPong_.view().data, ws.pingPong_.pitch(), width, height};
  }
  static size_t columnShared(const BoxBlurWorkspace& ws) { return ws.columnSharedBytes_; }
  static bool pdl(const BoxBlurWorkspace& ws) { return ws.pdl_; }
  static blur::FusedLimits fused(const BoxBlurWorkspace& ws) { return {ws.smCount_, ws.fusedSharedBytes_}; }
};

BoxBlurWorkspace::BoxBlurWorkspace(int maxWidth, int maxHeight) : maxWidth_(maxWidth), maxHeight_(maxHeight) {
  if (maxWidth < 1 || maxHeight < 1 || maxWidth > kMaxBlurDimension || maxHeight > kMaxBlurDimension)
    throw std::invalid_argument("BoxBlurWorkspace: size outside 1.." + std::to_string(kMaxBlurDimension));
  int device = 0, optin = 0;
  VP_CUDA_CHECK(cudaGetDevice(&device));
  VP_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  VP_CUDA_CHECK(cudaDeviceGetAttribute(&smCount_, cudaDevAttrMultiProcessorCount, device));
  pdl_ = pdlAvailable();
  columnSharedBytes_ = blur::prepareColumnPasses(size_t(optin));
  const size_t rowShared = blur::prepareRowPasses(size_t(optin));
  fusedSharedBytes_ = blur::prepareFusedPasses(size_t(optin));
  if (blur::columnSmemBytes(maxHeight, 1) > columnSharedBytes_ || blur::rowSmemBytes(maxWidth) > rowShared)
    throw std::invalid_argument("BoxBlurWorkspace: " + std::to_string(maxWidth) + "x" +
                                std::to_string(maxHeight) + " needs more shared memory than this device has");
}

namespace {

// Checked arguments, radius >= 1: the passes of `policy`, `params.passes` times.
void runPolicy(ConstRgbaView in, RgbaView out, const BlurParams& params, const BoxBlurPolicy& policy,
               BoxBlurWorkspace& ws, cudaStream_t stream) {
  const int w = in.width, h = in.height, r = params.radius;
  const bool oneKernel = policy.pass == BlurPass::Fused || policy.pass == BlurPass::FusedStacked ||
                         policy.pass == BlurPass::Strips;
  const ImageView<ushort4> sums = oneKernel ? ImageView<ushort4>{} : BoxBlurWorkspaceAccess::sums(ws, w, h);
  const RgbaView pingPong = params.passes > 1 ? BoxBlurWorkspaceAccess::pingPong(ws, w, h) : RgbaView{};
  const bool pdl = BoxBlurWorkspaceAccess::pdl(ws);
  ConstRgbaView src = in;
  for (int pass = 0; pass < params.passes; ++pass) {
    // The last pass writes `out`; earlier ones alternate so a pass never reads what it writes.
    const RgbaView dst = ((params.passes - 1 - pass) % 2 == 0) ? out : pingPong;
    // Each kernel is scheduled while the one before it drains (launch.cuh), but for the
    // wide sliding pass: measured slower so (4K r 100: 118 against 106 µs a call, batched).
    // Its grid is less than one wave of long blocks; scheduled into the previous kernel's
    // tail, they likely land on the SMs that free first instead of spreading evenly.
    const bool firstPdl = pdl && (pass > 0 || policy.pass != BlurPass::SlideWide);
    switch (policy.pass) {
      case BlurPass::Strips:
        blur::launchStripPass(src, dst, r, params.border, firstPdl, stream);
        break;
      case BlurPass::Fused:
      case BlurPass::FusedStacked:
        blur::launchFusedPass(policy.pass == BlurPass::FusedStacked, src, dst, r, params.border,
                              BoxBlurWorkspaceAccess::fused(ws), firstPdl, stream);
        break;
      case BlurPass::Slide:
      case BlurPass::SlideWide:
        blur::launchSlideColumns(policy.pass == BlurPass::SlideWide, src, sums, r, params.border, firstPdl,
                                 stream);
        blur::launchRowPass(policy.row, sums, dst, r, params.border, pdl, stream);
        break;
      case BlurPass::WholeColumns:
        blur::launchWholeColumns(src, sums, r, params.border, BoxBlurWorkspaceAccess::columnShared(ws),
                                 firstPdl, stream);
        blur::launchRowPass(policy.row, sums, dst, r, params.border, pdl, stream);
        break;
    }
    src = dst;
  }
}

// Checks the arguments; false: nothing to do (empty image) or done (r = 0, a copy).
bool prepare(ConstRgbaView in, RgbaView out, const BlurParams& params, const BoxBlurWorkspace& ws,
             cudaStream_t stream) {
  if (!blur::checkBlurArgs(in, out, params, ws.maxWidth(), ws.maxHeight(), "boxBlurGpu")) return false;
  if (params.radius > 0) return true;
  VP_CUDA_CHECK(cudaMemcpy2DAsync(out.data, out.pitch, in.data, in.pitch, size_t(in.width) * sizeof(uchar4),
                                  size_t(in.height), cudaMemcpyDefault,
                                  stream));  // identity, whatever the passes
  return false;
}

}  // namespace

void boxBlurGpu(ConstRgbaView in, RgbaView out, const BlurParams& params, BoxBlurWorkspace& ws,
                cudaStream_t stream) {
  if (prepare(in, out, params, ws, stream))
    runPolicy(in, out, params, ws.policy(in.width, in.height, params.radius), ws, stream);
}

void detail::boxBlurGpuWithPass(ConstRgbaView in, RgbaView out, const BlurParams& params, BlurPass pass,
                                BoxBlurWorkspace& ws, cudaStream_t stream) {
  if (!prepare(in, out, params, ws, stream)) return;
  BoxBlurPolicy policy = ws.policy(in.width, in.height, params.radius);
  policy.pass = pass;
  runPolicy(in, out, params, policy, ws, stream);
}

}  // namespace vp
