// Derived outputs (Model::output_quantities) in result files: the `outputs` dataset with its
// names and units in HDF5, `out:` columns in CSV, and rejection of non-finite values.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <hdf5.h>

#include "core/errors.hpp"
#include "io/csv_writer.hpp"
#include "io/hdf5_writer.hpp"

namespace gmbd {
namespace {
namespace fs = std::filesystem;

ResultLayout layout_with_outputs() {
  ResultLayout layout;
  layout.coordinates = {"x"};
  layout.constraints = {};
  layout.outputs = {"total_accel", "drift"};
  layout.output_units = {"m/s^2", "m"};
  return layout;
}

TEST(DerivedOutputs, WrittenToHdf5AndCsv) {
  const fs::path dir = fs::temp_directory_path() / "gmbd_derived_outputs";
  fs::create_directories(dir);
  const std::string h5 = (dir / "o.h5").string(), csv = (dir / "o.csv").string();
  {
    const ResultLayout layout = layout_with_outputs();
    Hdf5ResultWriter writer(h5, layout, 2);
    CsvResultWriter csv_writer(csv, layout);
    const Vec q = Vec::Constant(1, 0.5), v = Vec::Zero(1), none = Vec::Zero(0);
    for (int k = 0; k < 5; ++k) {
      const double out[2] = {1.0 * k, -2.0 * k};
      const ResultRow row{0.1 * k, q, v, none, none, 0.0, 0.0, 0.0, 0.0, out};
      writer.append(row);
      csv_writer.append(row);
    }
    const double bad[2] = {1.0, std::numeric_limits<double>::quiet_NaN()};
    EXPECT_THROW(writer.append({0.5, q, v, none, none, 0.0, 0.0, 0.0, 0.0, bad}), NumericalError);
  }
  hid_t f = H5Fopen(h5.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  hid_t d = H5Dopen2(f, "outputs", H5P_DEFAULT);
  ASSERT_GE(d, 0);
  hid_t space = H5Dget_space(d);
  hsize_t dims[2] = {0, 0};
  H5Sget_simple_extent_dims(space, dims, nullptr);
  EXPECT_EQ(dims[0], 5u);
  EXPECT_EQ(dims[1], 2u);
  double values[10];
  H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values);
  EXPECT_EQ(values[2 * 4 + 0], 4.0);
  EXPECT_EQ(values[2 * 4 + 1], -8.0);
  EXPECT_GT(H5Aexists(d, "outputs"), 0);
  EXPECT_GT(H5Aexists(d, "units"), 0);
  H5Sclose(space);
  H5Dclose(d);
  H5Fclose(f);
  std::ifstream in(csv);
  std::string header, first;
  std::getline(in, header);
  std::getline(in, first);
  EXPECT_NE(header.find("out:total_accel,out:drift"), std::string::npos) << header;
  EXPECT_EQ(first.substr(first.rfind(',') + 1), "-0") << first;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gmbd
