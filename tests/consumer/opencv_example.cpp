// vidproc on a cv::Mat (vidproc::opencv): an OpenCV BGR image segmented in place of a
// cv:: filter, a region of interest processed where it lies, and the same result for the
// same pixels given in RGB order.
#include <vidproc/vidproc_opencv.h>

#include <cstdio>

int main() {
  cv::Mat bgr(91, 161, CV_8UC3);
  for (int y = 0; y < bgr.rows; ++y)
    for (int x = 0; x < bgr.cols; ++x)
      bgr.at<cv::Vec3b>(y, x) = cv::Vec3b(uchar(x * 255 / bgr.cols), uchar(y * 255 / bgr.rows), uchar((x ^ y) & 255));

  vp::Chain chain("median=r=1,kmeans=k=3");
  const cv::Mat segmented = vp::opencv::process(chain, bgr);

  // The same pixels in RGB order, through a fresh chain told so: the same colours, swapped.
  cv::Mat rgb(bgr.size(), bgr.type()), back(bgr.size(), bgr.type());
  const int swap[] = {0, 2, 1, 1, 2, 0};
  cv::mixChannels(&bgr, 1, &rgb, 1, swap, 3);
  vp::Chain twin("median=r=1,kmeans=k=3");
  const cv::Mat rgbOut = vp::opencv::process(twin, rgb, /*rgbOrder=*/true);
  cv::mixChannels(&rgbOut, 1, &back, 1, swap, 3);
  const double differing = cv::norm(segmented, back, cv::NORM_INF);

  // A region of interest: its rows keep the parent's step.
  cv::Mat roi = bgr(cv::Rect(20, 10, 101, 61));
  vp::Chain blur("blur=r=2");
  vp::opencv::process(blur, roi, roi);  // in place, inside the parent image

  bool refused = false;
  try {
    vp::opencv::imageOf(cv::Mat(4, 4, CV_32FC3));
  } catch (const std::invalid_argument&) {
    refused = true;
  }
  std::printf("opencv_example: %s: %dx%d BGR, RGB twin max difference %g, float image %s\n", chain.describe().c_str(),
              segmented.cols, segmented.rows, differing, refused ? "refused" : "accepted");
  return differing == 0 && refused ? 0 : 1;
}
