// What the crosscheck program measures, over the measure window [t0, t1): the same quantities as
// bufferlab's summary (docs/measurement.md), gathered from ns-3 trace sources.
#pragma once

#include "json.h"

#include "ns3/nstime.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <string>
#include <vector>

namespace bl
{

struct Window
{
    ns3::Time t0;
    ns3::Time t1;

    bool In(ns3::Time t) const { return t >= t0 && t < t1; }

    bool Now() const { return In(ns3::Simulator::Now()); }

    // The part of [a, b) inside the window, in seconds.
    double Overlap(ns3::Time a, ns3::Time b) const
    {
        ns3::Time lo = std::max(a, t0);
        ns3::Time hi = std::min(b, t1);
        return hi > lo ? (hi - lo).GetSeconds() : 0.0;
    }

    double Seconds() const { return (t1 - t0).GetSeconds(); }
};

extern Window g_window;

// A sample set: mean and percentiles by the nearest-rank rule on the sorted samples.
struct Samples
{
    std::vector<double> v;
    double sum = 0;

    void Add(double x)
    {
        v.push_back(x);
        sum += x;
    }

    double Mean() const { return v.empty() ? NAN : sum / v.size(); }

    double Quantile(double q)
    {
        if (v.empty())
        {
            return NAN;
        }
        size_t k = static_cast<size_t>(std::ceil(q * v.size()));
        k = std::min(std::max<size_t>(k, 1), v.size()) - 1;
        std::nth_element(v.begin(), v.begin() + k, v.end());
        return v[k];
    }
};

// A quantity that changes in steps (packets queued), averaged over the window's time.
struct TimeAverage
{
    double value = 0;
    ns3::Time since;
    double integral = 0;

    void Set(double x)
    {
        ns3::Time now = ns3::Simulator::Now();
        integral += value * g_window.Overlap(since, now);
        value = x;
        since = now;
    }

    double Mean()
    {
        Set(value);
        double w = g_window.Seconds();
        return w > 0 ? integral / w : NAN;
    }
};

struct FlowStats
{
    std::string id;
    std::string kind;
    std::string src;
    std::string dst;
    double start_s = NAN;
    uint64_t bytes_delivered = 0; // application bytes in order, in the window
    uint64_t pkts_sent = 0;       // data-direction segments or datagrams, in the window
    uint64_t retransmits = 0;
    uint64_t timeouts = 0;
    // Data segments that reached the receiver while it already held all their bytes (below its
    // next expected byte, or in a block held out of order): sent again although not lost.
    uint64_t duplicates = 0;
    Samples rtt;
};

} // namespace bl
