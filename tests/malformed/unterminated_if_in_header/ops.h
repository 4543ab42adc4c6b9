#ifndef OPS_H_
#define OPS_H_
