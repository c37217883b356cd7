// A small JSON reader and writer for the crosscheck program: the configuration it reads is
// written by bufferlab's translation (python/bufferlab/crosscheck/translate.py), so the reader
// only needs to be correct, not fast or lenient. Errors throw std::runtime_error with the offset.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace bl
{

struct Json
{
    enum class Kind { Null, Bool, Number, String, Array, Object };
    Kind kind = Kind::Null;
    bool b = false;
    double num = 0;
    std::string str;
    std::vector<Json> arr;
    std::map<std::string, Json> obj;

    bool IsNull() const { return kind == Kind::Null; }
    bool Has(const std::string& k) const
    {
        auto it = obj.find(k);
        return kind == Kind::Object && it != obj.end() && !it->second.IsNull();
    }
    const Json& operator[](const std::string& k) const
    {
        auto it = obj.find(k);
        if (kind != Kind::Object || it == obj.end())
        {
            throw std::runtime_error("config: missing key \"" + k + "\"");
        }
        return it->second;
    }
    const Json& operator[](size_t i) const { return arr.at(i); }
    size_t size() const { return kind == Kind::Array ? arr.size() : obj.size(); }
    double Num() const
    {
        if (kind != Kind::Number)
        {
            throw std::runtime_error("config: expected a number");
        }
        return num;
    }
    int64_t Int() const { return static_cast<int64_t>(std::llround(Num())); }
    const std::string& Str() const
    {
        if (kind != Kind::String)
        {
            throw std::runtime_error("config: expected a string");
        }
        return str;
    }
    bool Bool() const { return kind == Kind::Bool ? b : throw std::runtime_error("config: expected a boolean"); }
    double NumOr(const std::string& k, double d) const { return Has(k) ? (*this)[k].Num() : d; }
    int64_t IntOr(const std::string& k, int64_t d) const { return Has(k) ? (*this)[k].Int() : d; }
};

class Parser
{
  public:
    explicit Parser(const std::string& s)
        : m_s(s)
    {
    }

    Json Parse()
    {
        Json v = Value();
        Ws();
        if (m_i != m_s.size())
        {
            Fail("trailing characters");
        }
        return v;
    }

  private:
    const std::string& m_s;
    size_t m_i = 0;

    [[noreturn]] void Fail(const std::string& what)
    {
        throw std::runtime_error("config JSON, offset " + std::to_string(m_i) + ": " + what);
    }

    void Ws()
    {
        while (m_i < m_s.size() && (m_s[m_i] == ' ' || m_s[m_i] == '\n' || m_s[m_i] == '\t' || m_s[m_i] == '\r'))
        {
            m_i++;
        }
    }

    bool Eat(const char* lit)
    {
        size_t n = std::char_traits<char>::length(lit);
        if (m_s.compare(m_i, n, lit) == 0)
        {
            m_i += n;
            return true;
        }
        return false;
    }

    Json Value()
    {
        Ws();
        if (m_i >= m_s.size())
        {
            Fail("unexpected end");
        }
        Json v;
        char c = m_s[m_i];
        if (c == '{')
        {
            v.kind = Json::Kind::Object;
            m_i++;
            Ws();
            if (m_i < m_s.size() && m_s[m_i] == '}')
            {
                m_i++;
                return v;
            }
            while (true)
            {
                Ws();
                std::string k = String();
                Ws();
                if (m_i >= m_s.size() || m_s[m_i] != ':')
                {
                    Fail("expected ':'");
                }
                m_i++;
                v.obj[k] = Value();
                Ws();
                if (m_i < m_s.size() && m_s[m_i] == ',')
                {
                    m_i++;
                    continue;
                }
                if (m_i < m_s.size() && m_s[m_i] == '}')
                {
                    m_i++;
                    return v;
                }
                Fail("expected ',' or '}'");
            }
        }
        if (c == '[')
        {
            v.kind = Json::Kind::Array;
            m_i++;
            Ws();
            if (m_i < m_s.size() && m_s[m_i] == ']')
            {
                m_i++;
                return v;
            }
            while (true)
            {
                v.arr.push_back(Value());
                Ws();
                if (m_i < m_s.size() && m_s[m_i] == ',')
                {
                    m_i++;
                    continue;
                }
                if (m_i < m_s.size() && m_s[m_i] == ']')
                {
                    m_i++;
                    return v;
                }
                Fail("expected ',' or ']'");
            }
        }
        if (c == '"')
        {
            v.kind = Json::Kind::String;
            v.str = String();
            return v;
        }
        if (Eat("true"))
        {
            v.kind = Json::Kind::Bool;
            v.b = true;
            return v;
        }
        if (Eat("false"))
        {
            v.kind = Json::Kind::Bool;
            return v;
        }
        if (Eat("null"))
        {
            return v;
        }
        size_t end = m_i;
        while (end < m_s.size() && std::string("+-0123456789.eE").find(m_s[end]) != std::string::npos)
        {
            end++;
        }
        if (end == m_i)
        {
            Fail("unexpected character");
        }
        v.kind = Json::Kind::Number;
        v.num = std::stod(m_s.substr(m_i, end - m_i));
        m_i = end;
        return v;
    }

    std::string String()
    {
        if (m_i >= m_s.size() || m_s[m_i] != '"')
        {
            Fail("expected a string");
        }
        m_i++;
        std::string out;
        while (m_i < m_s.size() && m_s[m_i] != '"')
        {
            char c = m_s[m_i++];
            if (c == '\\')
            {
                if (m_i >= m_s.size())
                {
                    Fail("bad escape");
                }
                char e = m_s[m_i++];
                switch (e)
                {
                case 'n': out += '\n'; break;
                case 't': out += '\t'; break;
                case 'u':
                    // Names and attribute values are ASCII; keep other code points as '?'.
                    m_i += 4;
                    out += '?';
                    break;
                default: out += e;
                }
            }
            else
            {
                out += c;
            }
        }
        if (m_i >= m_s.size())
        {
            Fail("unterminated string");
        }
        m_i++;
        return out;
    }
};

inline std::string Quote(const std::string& s)
{
    std::string out = "\"";
    for (char c : s)
    {
        if (c == '"' || c == '\\')
        {
            out += '\\';
        }
        out += c;
    }
    return out + "\"";
}

// A number for output: JSON has no NaN or infinity, so those become null.
inline std::string Num(double x)
{
    if (!std::isfinite(x))
    {
        return "null";
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", x);
    return buf;
}

} // namespace bl
