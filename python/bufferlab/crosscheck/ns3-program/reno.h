// bufferlab's NewReno window growth in ns-3 (docs/cc-newreno.md), so that a crosscheck compares
// the rest of the two TCPs (recovery, timers, SACK) rather than two growth rules:
//   * slow start: cwnd += min(segments acknowledged, 2) MSS per ACK, up to ssthresh
//     (RFC 3465 §2.2, L = 2);
//   * congestion avoidance: one MSS each time a whole window of bytes has been acknowledged
//     (RFC 5681 §3.1 byte counting), so delayed ACKs do not slow growth;
//   * ssthresh = max(FlightSize / 2, 2 MSS) (RFC 5681 eq. 4), ns-3's TcpNewReno's own rule, with
//     ns-3's FlightSize: its bytes in flight (RFC 6675's pipe, SACKed and lost bytes left out;
//     without SACK each duplicate ACK counts as one segment SACKed). The attribute
//     FlightSizeFromSequence takes SND.NXT - SND.UNA instead (RFC 5681 eq. 4, bufferlab's); the
//     crosscheck sets it, and `--ns3 cc.FlightSizeFromSequence=false` puts ns-3's rule back.
//     At a retransmission timeout bufferlab halves the pipe when the connection has SACK (the
//     data still in the network, not what SACK has shown delivered; docs/tcp.md): the attribute
//     TimeoutFlightFromPipe does the same here, and the crosscheck sets it for SACK blocks.
// ns-3's TcpNewReno grows per ACK instead (MSS²/cwnd in avoidance, one MSS in slow start), half
// as fast with delayed ACKs; its TcpLinuxReno counts segments but has no L limit and halves cwnd
// rather than FlightSize.
#pragma once

#include "ns3/boolean.h"
#include "ns3/tcp-congestion-ops.h"
#include "ns3/tcp-socket-state.h"

#include <algorithm>

namespace bl
{

class Rfc3465Reno : public ns3::TcpNewReno
{
  public:
    static ns3::TypeId GetTypeId()
    {
        static ns3::TypeId tid =
            ns3::TypeId("bl::Rfc3465Reno")
                .SetParent<ns3::TcpNewReno>()
                .AddConstructor<Rfc3465Reno>()
                .AddAttribute("FlightSizeFromSequence",
                              "ssthresh from SND.NXT - SND.UNA rather than ns-3's bytes in flight",
                              ns3::BooleanValue(false),
                              ns3::MakeBooleanAccessor(&Rfc3465Reno::m_fromSequence),
                              ns3::MakeBooleanChecker())
                .AddAttribute("TimeoutFlightFromPipe",
                              "at a retransmission timeout, ssthresh from ns-3's bytes in flight "
                              "even when FlightSizeFromSequence is set",
                              ns3::BooleanValue(false),
                              ns3::MakeBooleanAccessor(&Rfc3465Reno::m_timeoutFromPipe),
                              ns3::MakeBooleanChecker());
        return tid;
    }

    Rfc3465Reno() = default;

    Rfc3465Reno(const Rfc3465Reno& o)
        : ns3::TcpNewReno(o),
          m_ackedBytes(o.m_ackedBytes),
          m_fromSequence(o.m_fromSequence),
          m_timeoutFromPipe(o.m_timeoutFromPipe)
    {
    }

    std::string GetName() const override { return "Rfc3465Reno"; }

    ns3::Ptr<ns3::TcpCongestionOps> Fork() override { return ns3::CopyObject<Rfc3465Reno>(this); }

    uint32_t GetSsThresh(ns3::Ptr<const ns3::TcpSocketState> tcb, uint32_t bytesInFlight) override
    {
        m_ackedBytes = 0;
        m_pipe = bytesInFlight;
        m_ssThreshJustSet = true;
        if (m_fromSequence)
        {
            bytesInFlight = tcb->m_highTxMark.Get() - tcb->m_lastAckedSeq;
        }
        return ns3::TcpNewReno::GetSsThresh(tcb, bytesInFlight);
    }

    // ns-3's timeout (TcpSocketBase::ReTxTimeout) calls GetSsThresh (unless the head was already
    // resent by the timer), then CwndEvent(CA_EVENT_LOSS), which nothing else raises, then
    // CongestionStateSet(CA_LOSS): the first is where the timeout's ssthresh is replaced.
    void CwndEvent(ns3::Ptr<ns3::TcpSocketState> tcb,
                   const ns3::TcpSocketState::TcpCAEvent_t event) override
    {
        if (event == ns3::TcpSocketState::CA_EVENT_LOSS && m_timeoutFromPipe && m_ssThreshJustSet)
        {
            tcb->m_ssThresh = ns3::TcpNewReno::GetSsThresh(tcb, m_pipe);
        }
        m_ssThreshJustSet = false;
        ns3::TcpNewReno::CwndEvent(tcb, event);
    }

    void CongestionStateSet(ns3::Ptr<ns3::TcpSocketState> tcb,
                            const ns3::TcpSocketState::TcpCongState_t newState) override
    {
        m_ssThreshJustSet = false; // a fast retransmit's ssthresh stays as computed
        ns3::TcpNewReno::CongestionStateSet(tcb, newState);
    }

  protected:
    uint32_t SlowStart(ns3::Ptr<ns3::TcpSocketState> tcb, uint32_t segmentsAcked) override
    {
        if (segmentsAcked == 0)
        {
            return 0;
        }
        uint32_t mss = tcb->m_segmentSize;
        uint32_t before = tcb->m_cWnd;
        uint32_t grown = std::min<uint64_t>(uint64_t(before) + std::min(segmentsAcked, 2u) * mss, tcb->m_ssThresh.Get());
        tcb->m_cWnd = std::max(grown, before);
        uint32_t used = (tcb->m_cWnd - before + mss - 1) / mss;
        // What slow start did not use because it reached ssthresh goes to avoidance; what the
        // L = 2 limit cut off is not counted (RFC 3465 §2.2).
        return tcb->m_cWnd >= tcb->m_ssThresh ? segmentsAcked - std::min(used, segmentsAcked) : 0;
    }

    void CongestionAvoidance(ns3::Ptr<ns3::TcpSocketState> tcb, uint32_t segmentsAcked) override
    {
        m_ackedBytes += uint64_t(segmentsAcked) * tcb->m_segmentSize;
        if (m_ackedBytes >= tcb->m_cWnd)
        {
            m_ackedBytes -= tcb->m_cWnd;
            tcb->m_cWnd += tcb->m_segmentSize;
        }
    }

  private:
    uint64_t m_ackedBytes = 0; // bytes acknowledged toward the next MSS of growth
    bool m_fromSequence = false;
    bool m_timeoutFromPipe = false;
    uint32_t m_pipe = 0;            // ns-3's bytes in flight at the last GetSsThresh
    bool m_ssThreshJustSet = false; // GetSsThresh ran and no event or state change followed
};

} // namespace bl
